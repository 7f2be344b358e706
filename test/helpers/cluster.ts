import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { openServices, type Services } from "../../src/compose/services.js";
import { createTestDatabase, databaseUrl, type TestDatabase, type TestDatabaseKind } from "./databases.js";
import { type TestBusiness, TIER_LIMITS_OFF, testConfig } from "./harness.js";
import { type ServerProcess, startServerProcess } from "./server-process.js";

/** Several real server processes on one fresh database, with one verified business. */
export interface Cluster {
  database: TestDatabase;
  /** The processes' DATA_DIR (development mail is written to its mail/). */
  dir: string;
  /** The same database opened in the test process (the "CLI" side). */
  services: Services;
  servers: ServerProcess[];
  business: TestBusiness;
  /** Stops every process (SIGTERM), drops the database; resolves with the exit codes. */
  stop(): Promise<Array<number | null>>;
}

export async function startCluster(
  dialect: TestDatabaseKind,
  processes: number,
  env: Record<string, string> = {},
): Promise<Cluster> {
  const dir = mkdtempSync(path.join(tmpdir(), "vas-cluster-"));
  const database = await createTestDatabase(dialect, dir);
  const masterKey = randomBytes(32);
  const services = await openServices(testConfig(database.location, masterKey, { DATA_DIR: dir }));
  const created = await services.businesses.createBusiness("Cluster Ltd", "completed");
  const business = {
    businessId: created.business.id,
    keyId: created.keyId,
    name: created.business.name,
    apiKey: created.apiKey,
    secretKey: created.secretKey,
  };
  const servers = await Promise.all(
    Array.from({ length: processes }, () =>
      startServerProcess({
        DATABASE_URL: databaseUrl(database.location),
        DATA_DIR: dir,
        VAS_MASTER_KEY: masterKey.toString("hex"),
        ...TIER_LIMITS_OFF,
        ...env,
      }),
    ),
  );
  return {
    database,
    dir,
    services,
    servers,
    business,
    async stop() {
      const codes = await Promise.all(servers.map((server) => server.stop()));
      await services.close();
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
      return codes;
    },
  };
}
