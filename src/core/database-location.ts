/**
 * Where the service's database is: a SQLite file or a PostgreSQL URL. Here, in the core, because
 * the configuration reads it from the environment and storage opens it.
 */
export type DatabaseLocation = { dialect: "sqlite"; file: string } | { dialect: "postgres"; url: string };
