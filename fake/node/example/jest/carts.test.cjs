// The jest helpers: each test finds its worker's server reset, and a cart expires when the clock moves.
const {
  CreateTableCommand,
  GetItemCommand,
  ListTablesCommand,
  PutItemCommand,
  UpdateTimeToLiveCommand,
} = require("@aws-sdk/client-dynamodb");
const { fake } = require("dynalease-fake/jest");

async function createCarts() {
  await fake().client.send(
    new CreateTableCommand({
      TableName: "Carts",
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [{ AttributeName: "id", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "id", KeyType: "HASH" }],
    }),
  );
}

test.each(["first", "second"])("the %s test finds the server reset, whatever the other left", async () => {
  expect((await fake().client.send(new ListTablesCommand({}))).TableNames).toEqual([]);
  expect(await fake().now()).toEqual(new Date("2026-01-01T00:00:00Z"));
  expect(await fake().faults()).toEqual([]);
  await createCarts();
  await fake().addFault("Throttle", { operation: "Scan" });
  await fake().advance("3days");
});

test("a cart expires once the clock passes its time to live", async () => {
  const { client } = fake();
  await createCarts();
  await client.send(
    new UpdateTimeToLiveCommand({ TableName: "Carts", TimeToLiveSpecification: { Enabled: true, AttributeName: "expires" } }),
  );
  const tomorrow = Math.floor((await fake().now()).getTime() / 1000) + 86_400;
  await client.send(new PutItemCommand({ TableName: "Carts", Item: { id: { S: "c1" }, expires: { N: String(tomorrow) } } }));
  await fake().advance("2days");
  expect((await client.send(new GetItemCommand({ TableName: "Carts", Key: { id: { S: "c1" } } }))).Item).toBeUndefined();
});

test("the worker's server was started by the global setup, for this worker", () => {
  const servers = JSON.parse(process.env.DYNALEASE_FAKE_WORKERS);
  expect(servers[process.env.JEST_WORKER_ID].endpoint).toBe(fake().endpoint);
});
