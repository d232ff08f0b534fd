// Items as plain JSON documents (the console's "document" view, as the
// AWS console offers it) and back, without losing what JavaScript's own
// JSON would: numbers keep every digit (DynamoDB numbers have up to 38),
// so this module parses and writes JSON itself. Sets and binary have no
// plain JSON form; a document writes them as one-key objects tagged with
// their type: {"$SS": ["a"]}, {"$NS": [1, 2]}, {"$BS": ["AQI="]},
// {"$B": "AQI="}. Also CSV, for export and import. No DOM here.

// Num is a JSON number as written: its text, every digit kept.
export class Num {
  constructor(text) {
    this.text = text;
  }
}

const tags = { $SS: "SS", $NS: "NS", $BS: "BS", $B: "B" };

// parseJSON reads JSON text as JSON.parse does, except that numbers are
// Num (their text). Errors name the offset.
export function parseJSON(text) {
  let i = 0;
  const fail = (what) => {
    throw new SyntaxError(`${what} at position ${i}`);
  };
  const space = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) {
      i++;
    }
  };
  const literal = (word, value) => {
    if (text.startsWith(word, i)) {
      i += word.length;
      return value;
    }
    return fail("Unexpected token");
  };
  const string = () => {
    const m = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/.exec(text.slice(i));
    if (!m) {
      fail("Bad string");
    }
    i += m[0].length;
    return JSON.parse(m[0]);
  };
  const number = () => {
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m) {
      fail("Unexpected token");
    }
    i += m[0].length;
    return new Num(m[0]);
  };
  // members reads an object's or array's members after its opening
  // character up to close, each with member().
  const members = (close, member) => {
    i++;
    space();
    if (text[i] === close) {
      i++;
      return;
    }
    for (;;) {
      member();
      space();
      if (text[i] === close) {
        i++;
        return;
      }
      if (text[i] !== ",") {
        fail(`Expected ',' or '${close}'`);
      }
      i++;
    }
  };
  const value = () => {
    space();
    const c = text[i];
    if (c === "{") {
      const out = {};
      members("}", () => {
        space();
        const key = string();
        space();
        if (text[i] !== ":") {
          fail("Expected ':'");
        }
        i++;
        out[key] = value();
      });
      return out;
    }
    if (c === "[") {
      const out = [];
      members("]", () => out.push(value()));
      return out;
    }
    if (c === '"') {
      return string();
    }
    if (c === "t") {
      return literal("true", true);
    }
    if (c === "f") {
      return literal("false", false);
    }
    if (c === "n") {
      return literal("null", null);
    }
    return number();
  };
  const out = value();
  space();
  if (i < text.length) {
    fail("Unexpected text after the JSON value");
  }
  return out;
}

// writeJSON writes what parseJSON reads (Num as its text), indented by
// indent spaces (0: one line).
export function writeJSON(v, indent = 0, depth = 0) {
  const pad = indent ? "\n" + " ".repeat(indent * (depth + 1)) : "";
  const end = indent ? "\n" + " ".repeat(indent * depth) : "";
  const colon = indent ? ": " : ":";
  if (v instanceof Num) {
    return v.text;
  }
  if (Array.isArray(v)) {
    return v.length === 0 ? "[]" : "[" + v.map((x) => pad + writeJSON(x, indent, depth + 1)).join(",") + end + "]";
  }
  if (v !== null && typeof v === "object") {
    const entries = Object.entries(v);
    return entries.length === 0 ? "{}" : "{" + entries.map(([k, x]) => pad + JSON.stringify(k) + colon +
      writeJSON(x, indent, depth + 1)).join(",") + end + "}";
  }
  return JSON.stringify(v);
}

// toDocument is an attribute value as a document value (for writeJSON).
export function toDocument(av) {
  const [type, v] = Object.entries(av ?? {})[0] ?? ["NULL", true];
  switch (type) {
    case "S":
    case "BOOL":
      return v;
    case "N":
      return new Num(v);
    case "NULL":
      return null;
    case "M":
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toDocument(x)]));
    case "L":
      return v.map(toDocument);
    case "NS":
      return { $NS: v.map((n) => new Num(n)) };
    default: // SS, BS, B
      return { ["$" + type]: v };
  }
}

// fromDocument is a document value (from parseJSON) as an attribute value;
// path names the value in errors.
export function fromDocument(v, path = "the item") {
  if (v instanceof Num) {
    return { N: v.text };
  }
  if (v === null) {
    return { NULL: true };
  }
  if (typeof v === "string") {
    return { S: v };
  }
  if (typeof v === "boolean") {
    return { BOOL: v };
  }
  if (Array.isArray(v)) {
    return { L: v.map((x, i) => fromDocument(x, `${path}[${i}]`)) };
  }
  const keys = Object.keys(v);
  if (keys.length === 1 && tags[keys[0]]) {
    return tagged(tags[keys[0]], v[keys[0]], path);
  }
  return { M: Object.fromEntries(keys.map((k) => [k, fromDocument(v[k], `${path}.${k}`)])) };
}

function tagged(type, v, path) {
  if (type === "B") {
    if (typeof v !== "string") {
      throw new Error(`${path}: {"$B": ...} takes a base64 string.`);
    }
    return { B: v };
  }
  const want = type === "NS" ? "numbers" : "strings";
  if (!Array.isArray(v) || !v.every((x) => (type === "NS" ? x instanceof Num : typeof x === "string"))) {
    throw new Error(`${path}: {"$${type}": ...} takes an array of ${want}.`);
  }
  return { [type]: v.map((x) => (x instanceof Num ? x.text : x)) };
}

// itemText is an item as text in a view: "document" (plain JSON) or
// "dynamodb" (DynamoDB JSON), indented.
export function itemText(item, view) {
  return view === "document" ? writeJSON(toDocument({ M: item }), 2) : JSON.stringify(item, null, 2);
}

// parseItemText reads an item written in a view (see itemText). Errors
// say what is wrong in the console's words; the server checks the values.
export function parseItemText(text, view) {
  let v;
  try {
    v = view === "document" ? parseJSON(text) : JSON.parse(text);
  } catch (e) {
    throw new Error(`The item is not valid JSON: ${e.message}`);
  }
  if (v === null || typeof v !== "object" || Array.isArray(v) || v instanceof Num) {
    throw new Error(view === "document"
      ? 'The item must be a JSON object, e.g. {"pk": "a", "pages": 412}.'
      : 'The item must be a JSON object of attribute values, e.g. {"pk": {"S": "a"}}.');
  }
  return view === "document" ? fromDocument(v).M : v;
}

// isAttributeValue reports whether v looks like DynamoDB JSON: an object
// with one key, a type.
function isAttributeValue(v) {
  const keys = v !== null && typeof v === "object" && !Array.isArray(v) ? Object.keys(v) : [];
  return keys.length === 1 && ["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"].includes(keys[0]);
}

// parseItemsFile reads the items of a JSON file to import: an array of
// items, or one item per line (as DynamoDB's exports write them, each
// possibly wrapped as {"Item": ...}); each item DynamoDB JSON when every
// value is typed, otherwise a document.
export function parseItemsFile(text) {
  let values;
  const trimmed = text.trim();
  try {
    values = trimmed.startsWith("[") ? parseJSON(trimmed)
      : trimmed.split("\n").filter((l) => l.trim() !== "").map((l) => parseJSON(l));
  } catch (e) {
    throw new Error(`The file is not JSON (an array of items, or one item per line): ${e.message}`);
  }
  return values.map((v, n) => {
    if (v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length === 1 && v.Item) {
      v = v.Item;
    }
    if (v === null || typeof v !== "object" || Array.isArray(v) || v instanceof Num) {
      throw new Error(`Item ${n + 1} of the file is not a JSON object.`);
    }
    // DynamoDB JSON holds its numbers as strings: JSON.parse loses nothing.
    return Object.values(v).every(isAttributeValue) ? JSON.parse(writeJSON(v)) : fromDocument(v, `item ${n + 1}`).M;
  });
}

// csvField quotes a CSV field when it needs it (RFC 4180).
function csvField(text) {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

// cellText is an attribute value as a CSV cell: strings and numbers as
// they are, anything else as its document JSON; absent: empty.
export function cellText(av) {
  if (av === undefined) {
    return "";
  }
  if (av.S !== undefined) {
    return av.S;
  }
  if (av.N !== undefined) {
    return av.N;
  }
  return writeJSON(toDocument(av));
}

// toCSV writes items as CSV: a header of columns, then a line per item.
export function toCSV(columns, items) {
  const lines = [columns.map(csvField).join(",")];
  for (const item of items) {
    lines.push(columns.map((c) => csvField(cellText(item[c]))).join(","));
  }
  return lines.join("\r\n") + "\r\n";
}

// parseCSV reads CSV text (RFC 4180) into rows of fields.
export function parseCSV(text) {
  const rows = [];
  let row = [];
  let fieldText = "";
  let quoted = false;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        fieldText += '"';
        i += 2;
        continue;
      }
      if (c === '"') {
        quoted = false;
      } else {
        fieldText += c;
      }
      i++;
      continue;
    }
    if (c === '"' && fieldText === "") {
      quoted = true;
    } else if (c === ",") {
      row.push(fieldText);
      fieldText = "";
    } else if (c === "\n" || c === "\r") {
      row.push(fieldText);
      rows.push(row);
      row = [];
      fieldText = "";
      if (c === "\r" && text[i + 1] === "\n") {
        i++;
      }
    } else {
      fieldText += c;
    }
    i++;
  }
  if (fieldText !== "" || row.length > 0) {
    row.push(fieldText);
    rows.push(row);
  }
  if (quoted) {
    throw new Error("The CSV file ends inside a quoted field.");
  }
  return rows.filter((r) => r.length > 1 || r[0] !== "");
}

// itemsFromCSV reads items from CSV text: the first line names the
// attributes; a key attribute takes its type from the table (types: name
// to S, N or B), every other value is a string (as DynamoDB's CSV import
// reads it); empty fields are left out.
export function itemsFromCSV(text, types) {
  const [header, ...rows] = parseCSV(text);
  if (!header) {
    throw new Error("The CSV file is empty.");
  }
  return rows.map((r, n) => {
    if (r.length !== header.length) {
      throw new Error(`Line ${n + 2} of the CSV file has ${r.length} fields; its header has ${header.length}.`);
    }
    const item = {};
    header.forEach((name, j) => {
      if (r[j] !== "") {
        item[name] = { [types[name] ?? "S"]: r[j] };
      }
    });
    return item;
  });
}
