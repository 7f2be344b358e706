import { Redis } from "ioredis";

/** The Redis the shared rate-limit suites use. */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

async function redisAnswers(): Promise<boolean> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 2000, maxRetriesPerRequest: 0 });
  redis.on("error", () => {});
  try {
    await redis.connect();
    return (await redis.ping()) === "PONG";
  } catch {
    return false;
  } finally {
    redis.disconnect();
  }
}

/** Whether Redis answers; in CI it must (.ci/run starts it). */
export const REDIS_AVAILABLE = await redisAnswers();
if (!REDIS_AVAILABLE && process.env.CI) {
  throw new Error(`CI runs the shared rate-limit tests, but Redis at ${REDIS_URL} does not answer`);
}
