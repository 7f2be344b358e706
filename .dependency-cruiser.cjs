// The floors of the layout (../shared/STYLE.md, docs/architecture.md), held by `npm run lint`:
// no import cycle between files, and no import that runs up the floors. Lowest first:
//   core      pure leaves: errors, clock, display names, the ledger's arithmetic and kinds
//   storage   imports only the core
//   providers the bank: imports only the core; its store's port is implemented in storage and
//             fitted to it in compose/
//   domain    services that decide: imports providers, storage and the core
//   fronts    http, dashboard, cli, the bank server, web: import the domain, providers and the
//             core, never storage (they reach data through the domain's services); http and
//             dashboard never import each other
//   root      main, compose/, app, config/; and the CLI's own composition (cli/main.ts reads the
//             process, cli/run.ts opens the services, cli/command.ts is what a command is given)
// The SDK (src/client) imports nothing of the server at run time but the signing function, and
// its types only from core/api-types.ts (which imports nothing); a front may use it.
// The domain and providers work on their own records, not storage's row types (the
// src/storage/schema*.ts modules). Cycles between rooms (a folder under src/, or a file directly
// in it) are checked by scripts/floors.mjs over this tool's own graph.

const CORE =
  "^src/(errors|clock|display-name)\\.ts$|^src/ledger/(posting|holds|fees|payout-fees|charges|kobo|kinds|ledger-port|ledger-records)\\.ts$|^src/(core|shared)/";
const STORAGE = "^src/storage/";
const PROVIDERS = "^src/providers/";
const DOMAIN =
  "^src/(accounts|collections|payouts|reconciliation|mail|events|webhooks|businesses|auth|idempotency|jobs|ledger-audit)/|^src/ledger/";
const FRONTS = "^src/(http|dashboard|cli|bank|web)/";
const CLIENT = "^src/client/";
const CLI_ROOT = "^src/cli/(main|run|command)\\.ts$";
const ROW_TYPES = "^src/storage/schema[^/]*\\.ts$";

/** A rule: files matching `from` import only files matching one of `allowed` (within src/). */
const floor = (name, from, allowed, pathNot) => ({
  name,
  severity: "error",
  comment: `${name}: an import that runs up the floors`,
  from: { path: from, ...(pathNot ? { pathNot } : {}) },
  to: { path: "^src/", pathNot: allowed.join("|") },
});

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      severity: "error",
      comment: "Files that import each other in a circle: one of them is in the wrong place.",
      from: { path: "^src/" },
      to: { circular: true },
    },
    floor("core-is-a-leaf", CORE, [CORE]),
    floor("storage-imports-only-the-core", STORAGE, [CORE, STORAGE]),
    floor("providers-import-only-the-core", PROVIDERS, [CORE, PROVIDERS]),
    floor("domain-imports-providers-storage-and-the-core", DOMAIN, [CORE, STORAGE, PROVIDERS, DOMAIN], CORE),
    floor(
      "fronts-import-the-domain-and-below-but-storage",
      FRONTS,
      [CORE, PROVIDERS, DOMAIN, FRONTS, CLIENT],
      CLI_ROOT,
    ),
    {
      name: "domain-works-on-its-own-records",
      severity: "error",
      comment:
        "A storage row type (src/storage/schema*.ts) in the domain or providers: declare the record (or the value set, in core/) where it is used, and let storage map its rows to it.",
      from: { path: [DOMAIN, PROVIDERS], pathNot: CORE },
      to: { path: ROW_TYPES },
    },
    {
      name: "http-and-dashboard-apart",
      severity: "error",
      comment: "http and dashboard never import each other: what both need lives in web/ or below.",
      from: { path: "^src/http/" },
      to: { path: "^src/dashboard/" },
    },
    {
      name: "dashboard-and-http-apart",
      severity: "error",
      comment: "http and dashboard never import each other: what both need lives in web/ or below.",
      from: { path: "^src/dashboard/" },
      to: { path: "^src/http/" },
    },
    {
      name: "sdk-imports-only-the-signing-function",
      severity: "error",
      comment: "The SDK (src/client) takes nothing of the server at run time but the signing function.",
      from: { path: "^src/client/" },
      to: {
        path: "^src/",
        pathNot: "^src/client/|^src/auth/signature\\.ts$",
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "sdk-types-only-from-the-api-types",
      severity: "error",
      comment: "The SDK's types come from core/api-types.ts alone, so its declarations need no package.",
      from: { path: "^src/client/" },
      to: { path: "^src/", pathNot: "^src/client/|^src/auth/signature\\.ts$|^src/core/api-types\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    includeOnly: "^src/",
    exclude: { path: "\\.test\\.ts$" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
