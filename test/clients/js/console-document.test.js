// The console's document view, CSV and JSON files (internal/console/
// assets/document.js): items as plain JSON and back with every digit of a
// number kept, sets and binary tagged; CSV both ways. Run by
// test/clients_test.go (TestJavaScriptSDK).
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  itemText, itemsFromCSV, parseCSV, parseItemText, parseItemsFile, parseJSON, toCSV, writeJSON,
} from "../../../internal/console/assets/document.js";

const item = {
  pk: { S: "a" }, pages: { N: "412" }, big: { N: "12345678901234567890123456789012345678" }, price: { N: "1.50" },
  tags: { SS: ["x", "y"] }, sizes: { NS: ["1", "2.5"] }, blob: { B: "AQI=" }, blobs: { BS: ["AQ=="] },
  nested: { M: { list: { L: [{ N: "-0.000001" }, { NULL: true }, { BOOL: false }, { M: {} }] } } },
};

test("an item as a document and back keeps every digit, sets and binary", () => {
  const text = itemText(item, "document");
  assert.match(text, /"big": 12345678901234567890123456789012345678,/);
  assert.match(text, /"price": 1.50,/);
  assert.match(text, /"tags": \{\n {4}"\$SS": \[/);
  assert.match(text, /"blob": \{\n {4}"\$B": "AQI="/);
  assert.deepEqual(parseItemText(text, "document"), item);
  assert.deepEqual(parseItemText(itemText(item, "dynamodb"), "dynamodb"), item);
  assert.deepEqual(parseItemText('{"n": 1e3, "s": "1e3", "e": [], "o": {"$X": 1}}', "document"),
    { n: { N: "1e3" }, s: { S: "1e3" }, e: { L: [] }, o: { M: { $X: { N: "1" } } } });
  assert.throws(() => parseItemText('{"a": 01}', "document"), /not valid JSON: Expected ',' or '}' at position 7/);
  assert.throws(() => parseItemText('{"a": 1} x', "document"), /not valid JSON: Unexpected text/);
  assert.throws(() => parseItemText("[1]", "document"), /must be a JSON object, e.g./);
  assert.throws(() => parseItemText('{"s": {"$SS": [1]}}', "document"), /the item.s: \{"\$SS": ...\} takes an array of strings/);
  assert.throws(() => parseItemText('{"s": {"$NS": ["1"]}}', "document"), /takes an array of numbers/);
  assert.equal(writeJSON(parseJSON('{"a" : [ 1 , {"b":"\\u00e9\\n"} ] }')), '{"a":[1,{"b":"é\\n"}]}');
});

test("files to import: JSON arrays, lines, DynamoDB's export lines, documents; CSV", () => {
  assert.deepEqual(parseItemsFile('[{"pk": {"S": "a"}, "n": {"N": "1"}}, {"pk": "b", "n": 2}]'),
    [{ pk: { S: "a" }, n: { N: "1" } }, { pk: { S: "b" }, n: { N: "2" } }]);
  assert.deepEqual(parseItemsFile('{"Item": {"pk": {"S": "a"}}}\n\n{"pk": "b", "m": {"x": 99999999999999999999}}\n'),
    [{ pk: { S: "a" } }, { pk: { S: "b" }, m: { M: { x: { N: "99999999999999999999" } } } }]);
  assert.throws(() => parseItemsFile("[1]"), /Item 1 of the file is not a JSON object/);
  assert.throws(() => parseItemsFile("{"), /The file is not JSON/);

  const csv = toCSV(["pk", "n", "note", "m"], [
    { pk: { S: "a,1" }, n: { N: "7" }, note: { S: 'say "hi"\nthen go' }, m: { M: { x: { N: "1" } } } },
    { pk: { S: "b" } },
  ]);
  assert.equal(csv, 'pk,n,note,m\r\n"a,1",7,"say ""hi""\nthen go","{""x"":1}"\r\nb,,,\r\n');
  assert.deepEqual(parseCSV(csv), [["pk", "n", "note", "m"], ["a,1", "7", 'say "hi"\nthen go', '{"x":1}'], ["b", "", "", ""]]);
  assert.deepEqual(itemsFromCSV(csv, { pk: "S", n: "N" }), [
    { pk: { S: "a,1" }, n: { N: "7" }, note: { S: 'say "hi"\nthen go' }, m: { S: '{"x":1}' } },
    { pk: { S: "b" } },
  ]);
  assert.throws(() => itemsFromCSV("a,b\n1\n", {}), /Line 2 of the CSV file has 1 fields; its header has 2/);
  assert.throws(() => parseCSV('a\n"open'), /ends inside a quoted field/);
});
