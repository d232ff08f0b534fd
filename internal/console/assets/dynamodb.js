// The console's DynamoDB client: JSON 1.0 requests to the server the page
// came from (signed when the console has a key), and the helpers that turn
// the page's forms into requests and attribute values into text. No DOM
// here: test/clients/js runs this module against a real Kura.

import { parseItemText, toDocument, writeJSON } from "./document.js";
import { sign } from "./sigv4.js";

// ApiError is an error answer: its type without the namespace
// ("ResourceNotFoundException") and DynamoDB's message.
export class ApiError extends Error {
  constructor(type, message, status) {
    super(message);
    this.name = "ApiError";
    this.type = type;
    this.status = status;
  }
}

// authErrors are the answers that mean the key (or its absence) is wrong.
export const authErrors = new Set([
  "MissingAuthenticationTokenException", "UnrecognizedClientException",
  "InvalidSignatureException", "IncompleteSignatureException",
]);

export class Client {
  // endpoint: the server's origin; credentials: {accessKeyId,
  // secretAccessKey, sessionToken} or null to send requests unsigned.
  constructor({ endpoint, region, credentials = null }) {
    this.url = new URL("/", endpoint);
    this.region = region;
    this.credentials = credentials;
  }

  // call runs one operation and returns its output, or throws ApiError;
  // service is the X-Amz-Target prefix (DynamoDB Streams' for its
  // operations).
  async call(operation, input = {}, service = "DynamoDB_20120810") {
    const body = JSON.stringify(input);
    let headers = {
      "Content-Type": "application/x-amz-json-1.0",
      "X-Amz-Target": `${service}.${operation}`,
    };
    if (this.credentials) {
      headers = await sign({ host: this.url.host, region: this.region, credentials: this.credentials, headers, body });
    }
    const resp = await fetch(this.url, { method: "POST", headers, body });
    const text = await resp.text();
    let data;
    try {
      data = text ? JSON.parse(text) : {};
    } catch {
      throw new ApiError("InvalidResponse", `HTTP ${resp.status}: ${text.slice(0, 200)}`, resp.status);
    }
    if (!resp.ok) {
      const type = String(data.__type ?? "Error").split("#").pop();
      throw new ApiError(type, data.message ?? data.Message ?? "", resp.status);
    }
    return data;
  }

  // tableNames lists every table, following ListTables' pages.
  async tableNames() {
    const names = [];
    let start;
    do {
      const out = await this.call("ListTables", start ? { ExclusiveStartTableName: start } : {});
      names.push(...(out.TableNames ?? []));
      start = out.LastEvaluatedTableName;
    } while (start);
    return names;
  }
}

// createTableRequest builds CreateTable's input from the new-table form:
// {name, pkName, pkType, skName, skType} (no sort key name: none), and
// optionally billing ("PROVISIONED" with rcu and wcu, otherwise on
// demand), lsis [{name, skName, skType, projection}], stream (a view type,
// or empty), protection (deletion protection), vectors [{name, attribute,
// dimensions, distance}]. Time to live is not CreateTable's: see ttlRequest.
export function createTableRequest(form) {
  const defs = new Map();
  const define = (name, type) => {
    if (defs.has(name) && defs.get(name) !== type) {
      throw new Error(`The attribute ${name} is given two types, ${defs.get(name)} and ${type}.`);
    }
    defs.set(name, type);
  };
  const keys = [[form.pkName, form.pkType, "HASH"]];
  if (form.skName) {
    keys.push([form.skName, form.skType, "RANGE"]);
  }
  for (const [name, type] of keys) {
    define(name, type);
  }
  const input = {
    TableName: form.name,
    BillingMode: form.billing === "PROVISIONED" ? "PROVISIONED" : "PAY_PER_REQUEST",
    AttributeDefinitions: [],
    KeySchema: keys.map(([name, , role]) => ({ AttributeName: name, KeyType: role })),
  };
  if (input.BillingMode === "PROVISIONED") {
    input.ProvisionedThroughput = { ReadCapacityUnits: Number(form.rcu), WriteCapacityUnits: Number(form.wcu) };
  }
  const lsis = (form.lsis ?? []).filter((l) => l.name);
  if (lsis.length) {
    input.LocalSecondaryIndexes = lsis.map((l) => {
      define(l.skName, l.skType);
      return {
        IndexName: l.name,
        KeySchema: [{ AttributeName: form.pkName, KeyType: "HASH" }, { AttributeName: l.skName, KeyType: "RANGE" }],
        Projection: { ProjectionType: l.projection || "ALL" },
      };
    });
  }
  if (form.stream) {
    input.StreamSpecification = { StreamEnabled: true, StreamViewType: form.stream };
  }
  if (form.protection) {
    input.DeletionProtectionEnabled = true;
  }
  const vectors = (form.vectors ?? []).filter((v) => v.name);
  if (vectors.length) {
    input.VectorIndexes = vectors.map((v) => ({
      IndexName: v.name, VectorAttribute: { AttributeName: v.attribute }, Dimensions: Number(v.dimensions),
      DistanceFunction: v.distance, Projection: { ProjectionType: "ALL" },
    }));
  }
  input.AttributeDefinitions = [...defs].map(([name, type]) => ({ AttributeName: name, AttributeType: type }));
  return input;
}

// createIndexRequest is the UpdateTable request that adds a global
// secondary index to table (DescribeTable's Table) from the settings
// form's values: its key attributes defined (as the table defines them, or
// as the form types them), and for a PROVISIONED table the capacity the
// form gives.
export function createIndexRequest(table, form) {
  const keys = [[form.pkName, form.pkType, "HASH"]];
  if (form.skName) {
    keys.push([form.skName, form.skType, "RANGE"]);
  }
  const create = {
    IndexName: form.name,
    KeySchema: keys.map(([name, , role]) => ({ AttributeName: name, KeyType: role })),
    Projection: { ProjectionType: form.projection },
  };
  if ((table.BillingModeSummary?.BillingMode ?? "PROVISIONED") === "PROVISIONED") {
    create.ProvisionedThroughput = { ReadCapacityUnits: Number(form.rcu), WriteCapacityUnits: Number(form.wcu) };
  }
  return {
    TableName: table.TableName,
    AttributeDefinitions: keys.map(([name, type]) => ({ AttributeName: name, AttributeType: type })),
    GlobalSecondaryIndexUpdates: [{ Create: create }],
  };
}

// streamRequest is the UpdateTable request that turns table's stream on
// with view (NEW_IMAGE, OLD_IMAGE, NEW_AND_OLD_IMAGES, KEYS_ONLY), or off
// when view is empty.
export function streamRequest(tableName, view) {
  return {
    TableName: tableName,
    StreamSpecification: view ? { StreamEnabled: true, StreamViewType: view } : { StreamEnabled: false },
  };
}

// ttlRequest is the UpdateTimeToLive request that turns expiry on (or off)
// for attribute.
export function ttlRequest(tableName, attribute, enabled) {
  return { TableName: tableName, TimeToLiveSpecification: { AttributeName: attribute, Enabled: enabled } };
}

// streamsService is DynamoDB Streams' X-Amz-Target prefix.
const streamsService = "DynamoDBStreams_20120810";

// readStream reads a stream's records from the start of every shard
// (parents before children), at most max of them, oldest first; truncated
// says whether more were left unread.
export async function readStream(client, streamArn, max = 2000) {
  const shards = [];
  let start;
  do {
    const input = { StreamArn: streamArn };
    if (start) {
      input.ExclusiveStartShardId = start;
    }
    const { StreamDescription: d } = await client.call("DescribeStream", input, streamsService);
    shards.push(...(d.Shards ?? []));
    start = d.LastEvaluatedShardId;
  } while (start);
  const records = [];
  for (const shard of orderShards(shards)) {
    let { ShardIterator: iterator } = await client.call("GetShardIterator",
      { StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: "TRIM_HORIZON" }, streamsService);
    while (iterator) {
      const out = await client.call("GetRecords", { ShardIterator: iterator, Limit: 1000 }, streamsService);
      for (const r of out.Records ?? []) {
        if (records.length === max) {
          return { records, truncated: true };
        }
        records.push(r);
      }
      // An open shard hands out a next iterator even at its end.
      iterator = (out.Records ?? []).length > 0 ? out.NextShardIterator : null;
    }
  }
  return { records, truncated: false };
}

// orderShards puts each shard after its parent (a stream's shards form
// a tree that splits over time), otherwise by first sequence number.
export function orderShards(shards) {
  const ids = new Set(shards.map((s) => s.ShardId));
  const bySeq = (a, b) => {
    const x = BigInt(a.SequenceNumberRange?.StartingSequenceNumber ?? "0");
    const y = BigInt(b.SequenceNumberRange?.StartingSequenceNumber ?? "0");
    return x < y ? -1 : x > y ? 1 : 0;
  };
  const children = new Map();
  const roots = [];
  for (const s of shards) {
    if (s.ParentShardId && ids.has(s.ParentShardId)) {
      children.set(s.ParentShardId, [...(children.get(s.ParentShardId) ?? []), s]);
    } else {
      roots.push(s);
    }
  }
  const out = [];
  const visit = (list) => {
    for (const s of [...list].sort(bySeq)) {
      out.push(s);
      visit(children.get(s.ShardId) ?? []);
    }
  };
  visit(roots);
  return out;
}

// vectorOf is the vector an item holds in attribute name (a list of
// numbers, as vector indexes read it), or null.
export function vectorOf(item, name) {
  const list = item?.[name]?.L;
  if (!Array.isArray(list) || list.length === 0 || !list.every((v) => v.N !== undefined)) {
    return null;
  }
  return list.map((v) => Number(v.N));
}

// searchRequest builds SearchVectors' input from the vector search form:
// form = {index, vector (a JSON array of numbers), topK}.
export function searchRequest(table, form) {
  let vector;
  try {
    vector = JSON.parse(form.vector);
  } catch (e) {
    throw new Error(`The search vector is not valid JSON: ${e.message}`);
  }
  if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === "number" && Number.isFinite(x))) {
    throw new Error("The search vector must be a JSON array of numbers, e.g. [0.1, 0.2, 0.3].");
  }
  return {
    TableName: table.TableName,
    IndexName: form.index,
    TopK: Number(form.topK),
    SearchVector: vector.map((x) => ({ N: String(x) })),
  };
}

// keysOf returns the partition and sort key of a table or one of its
// indexes: [{name, type}] (type S, N or B), partition key first.
export function keysOf(table, indexName = "") {
  let schema = table.KeySchema;
  if (indexName) {
    const all = [...(table.GlobalSecondaryIndexes ?? []), ...(table.LocalSecondaryIndexes ?? [])];
    const index = all.find((i) => i.IndexName === indexName);
    if (!index) {
      throw new Error(`no index ${indexName}`);
    }
    schema = index.KeySchema;
  }
  const types = Object.fromEntries((table.AttributeDefinitions ?? []).map((d) => [d.AttributeName, d.AttributeType]));
  const order = { HASH: 0, RANGE: 1 };
  return [...schema]
    .sort((a, b) => order[a.KeyType] - order[b.KeyType])
    .map((k) => ({ name: k.AttributeName, type: types[k.AttributeName] ?? "S", role: k.KeyType }));
}

// sortKeyOperators are the sort key conditions the items form offers.
export const sortKeyOperators = ["=", "<", "<=", ">", ">=", "begins_with", "between"];

// filterOperators are the conditions a filter row offers: how each is
// written in a FilterExpression, and how many values it takes.
export const filterOperators = {
  "=": { values: 1, expr: (a, v) => `${a} = ${v[0]}` },
  "<>": { values: 1, expr: (a, v) => `${a} <> ${v[0]}` },
  "<": { values: 1, expr: (a, v) => `${a} < ${v[0]}` },
  "<=": { values: 1, expr: (a, v) => `${a} <= ${v[0]}` },
  ">": { values: 1, expr: (a, v) => `${a} > ${v[0]}` },
  ">=": { values: 1, expr: (a, v) => `${a} >= ${v[0]}` },
  "between": { values: 2, expr: (a, v) => `${a} BETWEEN ${v[0]} AND ${v[1]}` },
  "begins_with": { values: 1, expr: (a, v) => `begins_with(${a}, ${v[0]})` },
  "contains": { values: 1, expr: (a, v) => `contains(${a}, ${v[0]})` },
  "not contains": { values: 1, expr: (a, v) => `NOT contains(${a}, ${v[0]})` },
  "exists": { values: 0, expr: (a) => `attribute_exists(${a})` },
  "not exists": { values: 0, expr: (a) => `attribute_not_exists(${a})` },
};

// filterTypes are the value types a filter row offers.
export const filterTypes = ["S", "N", "B", "BOOL", "NULL"];

// typedValue is a filter row's value text as an attribute value of type.
function typedValue(text, type, attribute) {
  switch (type) {
    case "BOOL":
      if (text !== "true" && text !== "false") {
        throw new Error(`The filter on ${attribute} compares with a boolean: its value must be true or false.`);
      }
      return { BOOL: text === "true" };
    case "NULL":
      return { NULL: true };
    default:
      return { [type]: text };
  }
}

// itemsRequest builds the Scan or Query input for the items form:
// form = {mode: "scan"|"query", index, pk, skOp, sk1, sk2, descending,
// limit, projection (attribute names, comma-separated), filters
// [{attribute, op, value, value2, type}]}; startKey continues from a
// previous page. Partition key values are required for a query; an empty
// sort key value leaves the sort key unconstrained; a filter row without
// an attribute is left out. Attribute names go through
// ExpressionAttributeNames, so any name works (reserved words, dots).
export function itemsRequest(table, form, { limit, startKey } = {}) {
  const input = { TableName: table.TableName, Limit: limit ?? (Number(form.limit) || 50) };
  if (form.index) {
    input.IndexName = form.index;
  }
  if (startKey) {
    input.ExclusiveStartKey = startKey;
  }
  const names = {};
  const values = {};
  const name = (n) => {
    const id = `#n${Object.keys(names).length}`;
    names[id] = n;
    return id;
  };
  const value = (v) => {
    const id = `:v${Object.keys(values).length}`;
    values[id] = v;
    return id;
  };
  const filters = (form.filters ?? []).filter((f) => f.attribute);
  if (filters.length) {
    input.FilterExpression = filters.map((f) => {
      const op = filterOperators[f.op];
      if (!op) {
        throw new Error(`unknown filter operator ${f.op}`);
      }
      const vs = [f.value, f.value2].slice(0, op.values).map((t) => value(typedValue(t ?? "", f.type, f.attribute)));
      return op.expr(name(f.attribute), vs);
    }).join(" AND ");
  }
  const projection = (form.projection ?? "").split(",").map((p) => p.trim()).filter(Boolean);
  if (projection.length) {
    input.ProjectionExpression = projection.map(name).join(", ");
  }
  if (form.mode === "query") {
    input.KeyConditionExpression = keyCondition(table, form, name, value);
    if (form.descending) {
      input.ScanIndexForward = false;
    }
  }
  if (Object.keys(names).length) {
    input.ExpressionAttributeNames = names;
  }
  if (Object.keys(values).length) {
    input.ExpressionAttributeValues = values;
  }
  return { operation: form.mode === "query" ? "Query" : "Scan", input };
}

// keyCondition is a query's KeyConditionExpression from the items form.
function keyCondition(table, form, name, value) {
  const [pk, sk] = keysOf(table, form.index);
  if (form.pk === undefined || form.pk === "") {
    throw new Error(`A query needs a value for the partition key ${pk.name}.`);
  }
  let condition = `${name(pk.name)} = ${value({ [pk.type]: form.pk })}`;
  if (!sk || form.sk1 === undefined || form.sk1 === "") {
    return condition;
  }
  const a = name(sk.name);
  const v1 = value({ [sk.type]: form.sk1 });
  switch (form.skOp) {
    case "begins_with":
      return condition + ` AND begins_with(${a}, ${v1})`;
    case "between":
      return condition + ` AND ${a} BETWEEN ${v1} AND ${value({ [sk.type]: form.sk2 ?? "" })}`;
    default:
      if (!sortKeyOperators.includes(form.skOp)) {
        throw new Error(`unknown sort key operator ${form.skOp}`);
      }
      return condition + ` AND ${a} ${form.skOp} ${v1}`;
  }
}

// keyOf is the key of item for a table (its primary key attributes).
export function keyOf(table, item) {
  return Object.fromEntries(keysOf(table).map((k) => [k.name, item[k.name]]));
}

// columnsOf orders the attribute names of a page of items: the key
// attributes first, then the others as they first appear, at most max.
export function columnsOf(keys, items, max = 40) {
  const columns = keys.map((k) => k.name);
  for (const item of items) {
    for (const name of Object.keys(item)) {
      if (columns.length >= max) {
        return columns;
      }
      if (!columns.includes(name)) {
        columns.push(name);
      }
    }
  }
  return columns;
}

// formatValue is an attribute value as one line of text: strings and
// numbers as they are, sets with their type, documents as plain JSON
// (numbers as numbers, every digit kept; nested sets and binary tagged,
// as the editor's document view writes them).
export function formatValue(av) {
  if (av === undefined) {
    return "";
  }
  const [type, v] = Object.entries(av)[0] ?? ["", ""];
  switch (type) {
    case "S":
    case "N":
      return v;
    case "BOOL":
      return String(v);
    case "NULL":
      return "null";
    case "B":
      return `<binary ${v}>`;
    case "SS":
    case "NS":
    case "BS":
      return `${type} ${JSON.stringify(v)}`;
    default:
      return writeJSON(toDocument(av));
  }
}

// parseItem reads DynamoDB JSON item text (see document.js for both views).
export function parseItem(text) {
  return parseItemText(text, "dynamodb");
}

// batchWrite writes requests (BatchWriteItem's PutRequest or DeleteRequest
// entries) to table 25 at a time, sending again what comes back
// unprocessed (with a growing pause), and calls progress(done) after each
// batch.
export async function batchWrite(client, table, requests, progress = () => {}) {
  let done = 0;
  for (let i = 0; i < requests.length; i += 25) {
    let batch = requests.slice(i, i + 25);
    for (let attempt = 0; batch.length; attempt++) {
      if (attempt > 0) {
        if (attempt > 8) {
          throw new Error(`${batch.length} writes stayed unprocessed after ${attempt} tries; ${done} were written.`);
        }
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 3000)));
      }
      const out = await client.call("BatchWriteItem", { RequestItems: { [table]: batch } });
      const left = out.UnprocessedItems?.[table] ?? [];
      done += batch.length - left.length;
      batch = left;
      progress(done);
    }
  }
  return done;
}
