//! PartiQL for DynamoDB: ExecuteStatement, BatchExecuteStatement and ExecuteTransaction.
//!
//! - `lexer`, `parser`: the statements (SELECT, INSERT, UPDATE, DELETE) into an `ast`.
//! - `lower`: a statement with its parameters as the item operation that answers it (GetItem,
//!   Query, Scan, PutItem, UpdateItem, DeleteItem), or as an action of a transaction; the engine
//!   then answers that request as any other, so every check and every write path is shared.
//! - `selected`: the items of a SELECT that names a nested path, as DynamoDB answers them.

pub(crate) mod ast;
mod lexer;
pub(crate) mod lower;
mod parser;
pub(crate) mod selected;

pub(crate) use parser::{malformed, parse};
