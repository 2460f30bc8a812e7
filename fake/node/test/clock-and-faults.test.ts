/**
 * The clock and the fault rules through the package: the clock moves only when a test moves it
 * and reset puts it back; each kind of fault reaches the SDK as DynamoDB's error would.
 */

import {
  ConditionalCheckFailedException,
  CreateTableCommand,
  DynamoDBServiceException,
  GetItemCommand,
  PutItemCommand,
} from "@aws-sdk/client-dynamodb";
import { fake } from "dynalease-fake/vitest";
import { expect, test } from "vitest";

const START = new Date("2026-01-01T00:00:00Z");

async function createShop() {
  await fake().client.send(
    new CreateTableCommand({
      TableName: "Shop",
      BillingMode: "PAY_PER_REQUEST",
      AttributeDefinitions: [{ AttributeName: "pk", AttributeType: "S" }],
      KeySchema: [{ AttributeName: "pk", KeyType: "HASH" }],
    }),
  );
}

test("the manual clock stands still, moves when told, and each test finds it at its start", async () => {
  expect(await fake().now()).toEqual(START);
  expect(await fake().isFrozen()).toBe(true);
  expect(await fake().advance(90)).toEqual(new Date(START.getTime() + 90_000));
  expect(await fake().advance({ hours: 1, minutes: 1 })).toEqual(new Date(START.getTime() + 90_000 + 3_660_000));
  expect(await fake().setTime("2026-02-01T00:00:00Z")).toEqual(new Date("2026-02-01T00:00:00Z"));
  await fake().run();
  expect(await fake().isFrozen()).toBe(false);
  await fake().reset();
  expect(await fake().now()).toEqual(START);
  expect(await fake().isFrozen()).toBe(true);
});

test("a lost answer to a conditional put is retried by the SDK and meets its own write", async () => {
  await createShop();
  await fake().addFault("LostResponse", { operation: "PutItem", times: 1 });
  const put = fake().client.send(
    new PutItemCommand({
      TableName: "Shop",
      Item: { pk: { S: "order#1" } },
      ConditionExpression: "attribute_not_exists(pk)",
    }),
  );
  await expect(put).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  const outcomes = (await fake().requests()).filter((r) => r.Operation === "PutItem").map((r) => r.Outcome);
  expect(outcomes).toEqual(["OK", "ConditionalCheckFailedException"]);
});

test("an Error fault gives the SDK any error DynamoDB sends, and a rule counts what it did", async () => {
  await createShop();
  const id = await fake().addFault("Error", { code: "AccessDeniedException", message: "not yours", operation: "GetItem", times: 1 });
  const read = fake().client.send(new GetItemCommand({ TableName: "Shop", Key: { pk: { S: "x" } } }));
  await expect(read).rejects.toMatchObject({ name: "AccessDeniedException", message: "not yours" });
  const [rule] = await fake().faults();
  expect(rule).toMatchObject({ Id: id, Fault: "Error", Matched: 1, Fired: 1, Remaining: 0 });
  await fake().removeFault(id);
  expect(await fake().faults()).toEqual([]);
});

test("a rule the package cannot send is refused before it goes, with what it takes", async () => {
  const add = fake().addFault as (kind: string, options?: object) => Promise<number>;
  await expect(add.call(fake(), "Meteor")).rejects.toThrow(
    'unknown fault kind "Meteor"; the kinds are Throttle, ThrottlingException, InternalServerError',
  );
  await expect(add.call(fake(), "Throttle", { delayMs: 5 })).rejects.toThrow("a Throttle fault does not take delayMs; it takes no details");
  await expect(add.call(fake(), "Latency", {})).rejects.toThrow("a Latency fault needs delayMs");
  await expect(fake().addFault("Throttle", { probability: 2 })).rejects.toMatchObject({ status: 400 });
  expect(DynamoDBServiceException).toBeDefined();
});

test("reset leaves no table, no fault rule and an empty request log", async () => {
  await createShop();
  await fake().addFault("Throttle", { operation: "Scan" });
  await fake().reset();
  expect(await fake().snapshot()).toMatchObject({ Tables: [] });
  expect(await fake().faults()).toEqual([]);
  expect(await fake().requests()).toEqual([]);
});

test("each worker has a server of its own, started by the global setup", () => {
  const servers = JSON.parse(process.env.DYNALEASE_FAKE_WORKERS ?? "{}") as Record<string, { endpoint: string; pid: number }>;
  expect(servers[process.env.VITEST_POOL_ID ?? ""]?.endpoint).toBe(fake().endpoint);
  const endpoints = Object.values(servers).map((server) => server.endpoint);
  expect(new Set(endpoints).size).toBe(endpoints.length);
  expect(endpoints.length).toBeGreaterThanOrEqual(1);
});
