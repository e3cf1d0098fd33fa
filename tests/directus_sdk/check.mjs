// The official Directus SDK against a live Tracepoint, as a platform user calls it.
//
// Run by tests/directus_sdk/test_directus_sdk.py, which starts the service and passes:
//   DIRECTUS_URL, ADMIN_EMAIL, ADMIN_PASSWORD, ADMIN_TOKEN
//
// Every step runs; each failure is printed with the SDK call that failed, and the script
// exits 1 if any failed.

import {
  authentication,
  createDirectus,
  createItem,
  createItems,
  customEndpoint,
  deleteItem,
  readCollections,
  readFields,
  readFieldsByCollection,
  readFile,
  readAssetArrayBuffer,
  readItem,
  readItemPermissions,
  readItems,
  readMe,
  readPermissions,
  readPolicies,
  readPolicyGlobals,
  readRelations,
  readRolesMe,
  readUserPermissions,
  rest,
  serverHealth,
  serverInfo,
  serverPing,
  staticToken,
  updateItem,
  uploadFiles,
} from "@directus/sdk";

const env = (name) => {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is not set`);
    process.exit(2);
  }
  return value;
};

const URL = env("DIRECTUS_URL");
const EMAIL = env("ADMIN_EMAIL");
const PASSWORD = env("ADMIN_PASSWORD");
const TOKEN = env("ADMIN_TOKEN");

const failures = [];
let passed = 0;

/** Run one named step; a thrown error or failed assertion is recorded under its name. */
async function step(name, body) {
  try {
    await body();
    passed += 1;
  } catch (error) {
    failures.push(`${name}: ${describe(error)}`);
  }
}

function describe(error) {
  if (error?.errors) {
    const status = error.response?.status ?? "?";
    return `HTTP ${status} ${JSON.stringify(error.errors)}`;
  }
  return error?.stack ?? String(error);
}

function check(condition, message) {
  if (!condition) throw new Error(message);
}

/** JSON with object keys sorted: the order of fields in an answer is not part of it. */
function canonical(value) {
  return JSON.stringify(value, (_, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

function equal(actual, expected, what) {
  const a = canonical(actual);
  const e = canonical(expected);
  check(a === e, `${what}: expected ${e}, got ${a}`);
}

/** The SDK call must fail with this HTTP status and error code. */
async function refused(promise, status, code) {
  try {
    await promise;
  } catch (error) {
    equal(error.response?.status, status, "status");
    equal(error.errors?.[0]?.extensions?.code, code, "error code");
    return;
  }
  throw new Error(`succeeded; expected ${status} ${code}`);
}

/** A GS1 key with its check digit (GTIN-14 from 13 digits, GLN from 12). */
function withCheckDigit(digits) {
  const sum = [...digits]
    .reverse()
    .reduce((total, d, i) => total + Number(d) * (i % 2 === 0 ? 3 : 1), 0);
  return digits + String((10 - (sum % 10)) % 10);
}

const session = createDirectus(URL).with(authentication("json")).with(rest());
const admin = createDirectus(URL).with(staticToken(TOKEN)).with(rest());

// -- authentication ---------------------------------------------------------------------

let me;
await step("login (authentication('json'))", async () => {
  const result = await session.login({ email: EMAIL, password: PASSWORD });
  check(typeof result.access_token === "string", "no access_token");
  check(typeof result.refresh_token === "string", "no refresh_token");
  check(Number.isInteger(result.expires), `expires ${result.expires}`);
});

await step("readMe (session)", async () => {
  me = await session.request(readMe({ fields: ["id", "email"] }));
  equal(me.email, EMAIL, "email");
});

await step("refresh (authentication('json'))", async () => {
  const result = await session.refresh();
  check(typeof result.access_token === "string", "no access_token");
  const again = await session.request(readMe({ fields: ["id"] }));
  equal(again.id, me?.id, "id after refresh");
});

await step("readMe (staticToken)", async () => {
  const viaToken = await admin.request(readMe({ fields: ["id", "email"] }));
  equal(viaToken.email, EMAIL, "email");
});

await step("serverPing", async () => {
  equal(await admin.request(serverPing()), "pong", "ping");
});

await step("serverHealth", async () => {
  equal((await admin.request(serverHealth())).status, "ok", "health");
});

// -- items with slash keys --------------------------------------------------------------

const GTINS = ["950600013435", "950600013436", "950600013437"].map((d) => withCheckDigit("0" + d));
const GLN = withCheckDigit("950600013436");

await step("createItems product", async () => {
  const created = await admin.request(
    createItems(
      "product",
      GTINS.map((gtin, i) => ({ gtin, product_name: `SDK product ${i}` })),
    ),
  );
  equal(
    created.map((p) => p.id),
    GTINS.map((gtin) => `/01/${gtin}`),
    "ids",
  );
});

await step("readItems product (filter, sort, limit, fields)", async () => {
  const found = await admin.request(
    readItems("product", {
      filter: { product_name: { _starts_with: "SDK product" } },
      sort: ["-gtin"],
      limit: 2,
      fields: ["id", "gtin", "product_name"],
    }),
  );
  equal(
    found,
    [...GTINS]
      .reverse()
      .slice(0, 2)
      .map((gtin) => ({
        id: `/01/${gtin}`,
        gtin,
        product_name: `SDK product ${GTINS.indexOf(gtin)}`,
      })),
    "items",
  );
});

const PRODUCT = `/01/${GTINS[0]}`;

await step("readItem product /01/…", async () => {
  const product = await admin.request(readItem("product", PRODUCT, { fields: ["id", "gtin"] }));
  equal(product, { id: PRODUCT, gtin: GTINS[0] }, "product");
});

await step("updateItem product /01/…", async () => {
  const updated = await admin.request(
    updateItem("product", PRODUCT, { product_name: "Renamed" }, { fields: ["product_name"] }),
  );
  equal(updated, { product_name: "Renamed" }, "updated");
});

await step("readItem product /01/… with as_of", async () => {
  const before = new Date(Date.now() - 3600_000).toISOString();
  await refused(
    admin.request(readItem("product", PRODUCT, { as_of: before })),
    403,
    "FORBIDDEN",
  );
  const now = await admin.request(
    readItem("product", PRODUCT, { as_of: new Date().toISOString(), fields: ["product_name"] }),
  );
  equal(now, { product_name: "Renamed" }, "as of now");
});

await step("readItemPermissions product /01/…", async () => {
  const allowed = await admin.request(readItemPermissions("product", PRODUCT));
  equal(allowed.update, { access: true }, "update");
  equal(allowed.delete, { access: true }, "delete");
});

await step("readItemPermissions product (no key)", async () => {
  const allowed = await admin.request(readItemPermissions("product"));
  equal(allowed.update, { access: true }, "update");
});

await step("deleteItem product /01/…", async () => {
  await admin.request(deleteItem("product", PRODUCT));
  await refused(admin.request(readItem("product", PRODUCT)), 403, "FORBIDDEN");
});

await step("readItem product: a key that does not exist", async () => {
  await refused(
    admin.request(readItem("product", `/01/${withCheckDigit("0950600099999")}`)),
    403,
    "FORBIDDEN",
  );
});

const LOCATION = `/414/${GLN}`;

await step("createItem location /414/…", async () => {
  const created = await admin.request(
    createItem("location", { gln: GLN, use_gs1_identifiers: true, location_name: "Dock" }),
  );
  equal(created.id, LOCATION, "id");
});

await step("readItem location /414/…", async () => {
  const location = await admin.request(readItem("location", LOCATION, { fields: ["gln"] }));
  equal(location, { gln: GLN }, "location");
});

await step("updateItem location /414/…", async () => {
  const updated = await admin.request(
    updateItem("location", LOCATION, { location_name: "Gate" }, { fields: ["location_name"] }),
  );
  equal(updated, { location_name: "Gate" }, "updated");
});

await step("readItem location /414/…/254/ (extension with a slash)", async () => {
  const created = await admin.request(
    createItem("location", { gln: GLN, gln_extension: "bay/7", use_gs1_identifiers: true }),
  );
  equal(created.id, `/414/${GLN}/254/bay%2F7`, "id");
  const read = await admin.request(readItem("location", created.id, { fields: ["gln_extension"] }));
  equal(read, { gln_extension: "bay/7" }, "location");
  await admin.request(deleteItem("location", created.id));
});

await step("deleteItem location /414/…", async () => {
  await admin.request(deleteItem("location", LOCATION));
  await refused(admin.request(readItem("location", LOCATION)), 403, "FORBIDDEN");
});

await step("createItem lot /01/…/10/… and publish it (customEndpoint)", async () => {
  const maker = await admin.request(
    createItem("organisation", {
      organisation_name: "SDK maker",
      organisation_company_prefix: "9506000",
    }),
  );
  // The commissioning event's EPC class needs the manufacturer's company prefix.
  await admin.request(updateItem("product", `/01/${GTINS[1]}`, { product_manufacturer: maker.id }));
  const lot = await admin.request(
    createItem("lot", { product: `/01/${GTINS[1]}`, lot_number: "L/1", quantity: "5", uom: "KGM" }),
  );
  equal(lot.id, `/01/${GTINS[1]}/10/L%2F1`, "lot id");
  const published = await admin.request(
    customEndpoint({ path: `/items/lot/${lot.id}/publish`, method: "POST" }),
  );
  equal(published.lot, lot.id, "published lot");
  const read = await admin.request(readItem("lot", lot.id, { fields: ["status"] }));
  equal(read, { status: "published" }, "lot");
});

// -- files ------------------------------------------------------------------------------

const CONTENT = "gtin,name\n09506000134352,Cheese\n";
let fileId;

await step("uploadFiles", async () => {
  const form = new FormData();
  form.append("title", "SDK upload");
  form.append("file", new Blob([CONTENT], { type: "text/csv" }), "products.csv");
  const uploaded = await admin.request(uploadFiles(form));
  fileId = uploaded.id;
  equal(uploaded.filename_download, "products.csv", "filename_download");
  equal(uploaded.title, "SDK upload", "title");
});

await step("readFile", async () => {
  const file = await admin.request(readFile(fileId, { fields: ["id", "type", "filesize"] }));
  equal(file.id, fileId, "id");
  check(file.type.startsWith("text/csv"), `type ${file.type}`);
  equal(Number(file.filesize), CONTENT.length, "filesize");
});

await step("readAssetArrayBuffer", async () => {
  const bytes = await admin.request(readAssetArrayBuffer(fileId));
  equal(new TextDecoder().decode(bytes), CONTENT, "content");
});

// -- access ---------------------------------------------------------------------------

await step("readUserPermissions (/permissions/me)", async () => {
  const mine = await session.request(readUserPermissions());
  equal(mine.product?.read?.access, "full", "product read");
});

await step("readPermissions", async () => {
  const rows = await admin.request(readPermissions({ limit: 5 }));
  check(Array.isArray(rows), "not a list");
});

await step("readPolicies", async () => {
  const policies = await admin.request(readPolicies({ fields: ["id", "admin_access"] }));
  check(
    policies.some((p) => p.admin_access === true),
    "no policy with admin_access",
  );
});

await step("readPolicyGlobals", async () => {
  const globals = await session.request(readPolicyGlobals());
  equal(globals.admin_access, true, "admin_access");
});

await step("readRolesMe", async () => {
  check(Array.isArray(await session.request(readRolesMe())), "not a list");
});

// -- schema discovery (/server/info, /collections, /fields, /relations) ------------------

await step("serverInfo", async () => {
  const info = await admin.request(serverInfo());
  check(info && typeof info === "object", "no info");
});

await step("readCollections", async () => {
  const collections = await admin.request(readCollections());
  check(
    collections.some((c) => c.collection === "product"),
    "no product collection",
  );
});

await step("readFields", async () => {
  const fields = await admin.request(readFields());
  check(
    fields.some((f) => f.collection === "product" && f.field === "gtin"),
    "no product.gtin",
  );
});

await step("readFieldsByCollection product", async () => {
  const fields = await admin.request(readFieldsByCollection("product"));
  check(
    fields.some((f) => f.field === "gtin"),
    "no gtin",
  );
});

await step("readRelations", async () => {
  const relations = await admin.request(readRelations());
  check(
    relations.some((r) => r.collection === "lot" && r.field === "product"),
    "no lot.product relation",
  );
});

// -- done ---------------------------------------------------------------------------------

await step("logout (authentication('json'))", async () => {
  await session.logout();
  await refused(session.request(readMe()), 401, "INVALID_CREDENTIALS");
});

if (failures.length) {
  console.error(`${failures.length} Directus SDK call(s) failed (${passed} passed):`);
  for (const failure of failures) console.error(`- ${failure}`);
  process.exit(1);
}
console.log(`${passed} Directus SDK steps passed`);
