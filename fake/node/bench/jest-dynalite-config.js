// jest-dynalite's configuration: no table made for the tests (each test makes its own).
module.exports = { tables: [] };
