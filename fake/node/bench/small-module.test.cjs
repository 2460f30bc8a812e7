// The small module of the speed comparison: three tests, each creating a table, then 200 PutItem,
// 200 GetItem and a Query through @aws-sdk/client-dynamodb, against dynalease-fake (through its
// jest helpers) or dynalite (through jest-dynalite), as $BENCH_BACKEND says.
const {
  CreateTableCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} = require("@aws-sdk/client-dynamodb");

let dynalite;
function client() {
  if (process.env.BENCH_BACKEND === "dynalite") {
    dynalite ??= new DynamoDBClient({
      endpoint: process.env.MOCK_DYNAMODB_ENDPOINT,
      region: "us-east-1",
      credentials: { accessKeyId: "fake", secretAccessKey: "fake" },
    });
    return dynalite;
  }
  return require("dynalease-fake/jest").fake().client;
}

for (const round of [1, 2, 3]) {
  test(`a table of 200 items, written, read and queried (${round})`, async () => {
    const table = `Bench${round}`;
    const dynamodb = client();
    await dynamodb.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [
          { AttributeName: "pk", AttributeType: "S" },
          { AttributeName: "sk", AttributeType: "S" },
        ],
        KeySchema: [
          { AttributeName: "pk", KeyType: "HASH" },
          { AttributeName: "sk", KeyType: "RANGE" },
        ],
      }),
    );
    for (let i = 0; i < 200; i++) {
      await dynamodb.send(
        new PutItemCommand({ TableName: table, Item: { pk: { S: "cart" }, sk: { S: `item${i}` }, n: { N: String(i) } } }),
      );
    }
    for (let i = 0; i < 200; i++) {
      const { Item } = await dynamodb.send(
        new GetItemCommand({ TableName: table, Key: { pk: { S: "cart" }, sk: { S: `item${i}` } } }),
      );
      expect(Item.n.N).toBe(String(i));
    }
    const { Count } = await dynamodb.send(
      new QueryCommand({
        TableName: table,
        KeyConditionExpression: "pk = :pk",
        ExpressionAttributeValues: { ":pk": { S: "cart" } },
      }),
    );
    expect(Count).toBe(200);
  });
}
