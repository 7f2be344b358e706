// Ports are the consumer's (issue 45, docs/architecture.md "Ports"): no file outside src/storage
// and src/compose imports a type (an interface or a type alias) that storage declares, but for
// storage's handles, which the domain only passes back to storage's functions. A port or a record
// is declared by the room that uses it (storage implements it structurally, compose/ checks the
// fit) or in src/core/ when storage itself must name it. Read from the syntax alone (no type
// checker: the lint stays fast), so a type counts as storage's where storage's file declares it
// (`export interface`, `export type X =`) or re-exports it as a type (`export type { X }`).
// And queries are storage's: no file outside src/storage, src/compose and the Virtual Bank's own
// server (src/bank) imports a database driver or the query builder, or builds a query.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import ts from "typescript";

/** Storage's handles: the domain holds them and hands them back to storage, calling no method. */
const HANDLES = new Set(["Storage", "Executor"]);

const filesUnder = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
const parse = (file) => ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
const exported = (node) => node.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false;

/** The names each storage file declares or re-exports as types. */
const storageTypes = (root) => {
  const types = new Map();
  for (const file of filesUnder(join(root, "src/storage"))) {
    const names = new Set();
    for (const node of parse(file).statements) {
      if ((ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) && exported(node))
        names.add(node.name.text);
      if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamedExports(node.exportClause))
        for (const element of node.exportClause.elements)
          if (node.isTypeOnly || element.isTypeOnly) names.add(element.name.text);
    }
    types.set(relative(root, file), names);
  }
  return types;
};

/** Each import of a storage-declared type outside storage and compose/: `file: Name`. */
export const storageTypeImports = (root) => {
  const types = storageTypes(root);
  const found = [];
  for (const file of filesUnder(join(root, "src"))) {
    const source = relative(root, file);
    if (/^src\/(storage|compose)\//.test(source) || source.endsWith(".test.ts")) continue;
    for (const node of parse(file).statements) {
      const from =
        ts.isImportDeclaration(node) || ts.isExportDeclaration(node) ? node.moduleSpecifier : undefined;
      if (!from || !ts.isStringLiteral(from) || !from.text.startsWith(".")) continue;
      const target = normalize(join(dirname(source), from.text)).replace(/\.js$/, ".ts");
      const declared = types.get(target);
      if (!declared) continue;
      const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause;
      if (!bindings || !(ts.isNamedImports(bindings) || ts.isNamedExports(bindings))) continue;
      for (const element of bindings.elements) {
        const name = (element.propertyName ?? element.name).text;
        if (declared.has(name) && !HANDLES.has(name)) found.push({ source, name, target });
      }
    }
  }
  return found;
};

/** The problems: each import of a storage-declared type outside storage and compose/ (none may be). */
export const checkStorageTypes = (root) =>
  storageTypeImports(root).map(
    ({ source, name, target }) =>
      `storage-types-are-the-consumers: ${source} imports ${name} from ${target}: declare it where it is used (storage implements it structurally) or in src/core/`,
  );

/** A database driver or the query builder, imported; a query built. */
const DATABASE_CODE = [
  /from\s+"(kysely|pg|better-sqlite3)"/,
  /\.(selectFrom|updateTable|insertInto|deleteFrom)\(/,
];

/**
 * The problems: a file outside storage, compose/ and the Virtual Bank's own server (src/bank, a
 * separate process with its own database) that imports a database driver or the query builder,
 * or builds a query: queries are storage's, which the domain calls (docs/architecture.md).
 */
export const checkQueries = (root) =>
  filesUnder(join(root, "src"))
    .map((file) => relative(root, file))
    .filter((source) => !/^src\/(storage|compose|bank)\//.test(source) && !source.endsWith(".test.ts"))
    .filter((source) =>
      DATABASE_CODE.some((pattern) => pattern.test(readFileSync(join(root, source), "utf8"))),
    )
    .map(
      (source) =>
        `queries-are-storage's: ${source} imports a database driver or builds a query: call storage's functions`,
    );
