import {
  CreateTableCommand,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
  TransactionCanceledException,
  UpdateItemCommand,
  UpdateTimeToLiveCommand,
} from "@aws-sdk/client-dynamodb";
import { DeleteCommand, GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { fake } from "dynalease-fake/vitest";
import { expect, test } from "vitest";

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

test("a cart expires once the clock passes its time to live", async () => {
  const { client } = fake();
  await createCarts();
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: "Carts",
      TimeToLiveSpecification: { Enabled: true, AttributeName: "expires" },
    }),
  );
  const tomorrow = Math.floor((await fake().now()).getTime() / 1000) + 86_400;
  await client.send(new PutItemCommand({ TableName: "Carts", Item: { id: { S: "c1" }, expires: { N: String(tomorrow) } } }));

  await fake().advance("2days"); // the sweeps due run before it resolves

  const { Item } = await client.send(new GetItemCommand({ TableName: "Carts", Key: { id: { S: "c1" } } }));
  expect(Item).toBeUndefined();
});

test("a throttled write is retried by the SDK and applied once", async () => {
  const { client } = fake();
  await createCarts();
  await fake().addFault("Throttle", { operation: "UpdateItem", times: 1 });

  const answer = await client.send(
    new UpdateItemCommand({
      TableName: "Carts",
      Key: { id: { S: "c2" } },
      UpdateExpression: "ADD quantity :one",
      ExpressionAttributeValues: { ":one": { N: "1" } },
      ReturnValues: "ALL_NEW",
    }),
  );

  expect(answer.$metadata.attempts).toBe(2);
  expect(answer.Attributes?.quantity).toEqual({ N: "1" });
  const updates = (await fake().requests()).filter((request) => request.Operation === "UpdateItem");
  expect(updates.map((request) => request.Outcome)).toEqual(["ProvisionedThroughputExceededException", "OK"]);
});

test("a snapshot puts the tables back as they were", async () => {
  const documents = fake().documentClient;
  await createCarts();
  await documents.send(new PutCommand({ TableName: "Carts", Item: { id: "c3", items: ["tea", "milk"] } }));
  const saved = await fake().snapshot();

  await documents.send(new DeleteCommand({ TableName: "Carts", Key: { id: "c3" } }));
  expect((await documents.send(new GetCommand({ TableName: "Carts", Key: { id: "c3" } }))).Item).toBeUndefined();

  expect(await fake().load(saved)).toEqual(["Carts"]);
  const { Item } = await documents.send(new GetCommand({ TableName: "Carts", Key: { id: "c3" } }));
  expect(Item).toEqual({ id: "c3", items: ["tea", "milk"] });
});

test("a transaction whose condition fails is cancelled and changes nothing", async () => {
  const { client } = fake();
  await createCarts();
  await client.send(new PutItemCommand({ TableName: "Carts", Item: { id: { S: "c4" }, state: { S: "paid" } } }));

  const cancelled = await client
    .send(
      new TransactWriteItemsCommand({
        TransactItems: [
          { Put: { TableName: "Carts", Item: { id: { S: "c5" }, state: { S: "open" } } } },
          {
            ConditionCheck: {
              TableName: "Carts",
              Key: { id: { S: "c4" } },
              ConditionExpression: "#state = :open",
              ExpressionAttributeNames: { "#state": "state" },
              ExpressionAttributeValues: { ":open": { S: "open" } },
            },
          },
        ],
      }),
    )
    .catch((error: unknown) => error);

  expect(cancelled).toBeInstanceOf(TransactionCanceledException);
  const reasons = (cancelled as TransactionCanceledException).CancellationReasons?.map((reason) => reason.Code);
  expect(reasons).toEqual(["None", "ConditionalCheckFailed"]);
  const { Item } = await client.send(new GetItemCommand({ TableName: "Carts", Key: { id: { S: "c5" } } }));
  expect(Item).toBeUndefined();
});
