import { randomUUID } from "node:crypto";
import { hashApiKey } from "../auth/api-key-hash.js";
import type { Clock } from "../clock.js";
import type { Actor } from "../core/actor.js";
import type { BusinessRecord } from "../core/business-record.js";
import type { ApiKeyStatus, VerificationStatus } from "../core/business-states.js";
import { DEFAULT_TIME_ZONE } from "../core/zoned-time.js";
import { AppError, ErrorCode } from "../errors.js";
import {
  findApiKeyById,
  insertApiKey,
  listApiKeys,
  updateApiKeyStatus,
  updateMinSignatureVersion,
} from "../storage/api-key-repository.js";
import {
  findBusiness,
  insertBusiness,
  insertVerificationEvent,
  listBusinesses,
  listVerificationEvents,
  updateVerificationStatus,
} from "../storage/business-repository.js";
import { advanceCounter, CREDENTIALS_EPOCH } from "../storage/counter-repository.js";
import type { Storage } from "../storage/database.js";
import type { Executor } from "../storage/executor.js";
import { writeTransaction } from "../storage/transactions.js";
import { findUser } from "../storage/user-repository.js";
import {
  type ApiKeySummary,
  apiKeySummary,
  displayPrefix,
  findKey,
  generateKeyPair,
  type IssuedKeyPair,
  isApiKeyStatus,
  isUuid,
  type NewApiKey,
  secretContext,
} from "./api-keys.js";
import { parseBusinessName } from "./business-name.js";
import {
  type BusinessSummary,
  businessSummary,
  isVerificationStatus,
  toChange,
  type VerificationChange,
} from "./business-views.js";
import type { SecretBox } from "./secret-box.js";
import { checkTransition } from "./verification.js";

export { type BusinessSummary, isVerificationStatus, type VerificationChange };

const notFound = (what: string) => new AppError(ErrorCode.NOT_FOUND, 404, what);
const invalid = (message: string) => new AppError(ErrorCode.VALIDATION_FAILED, 400, message);

export interface BusinessServiceOptions {
  storage: Storage;
  /** Seals the secret keys it issues. */
  box: SecretBox;
  now?: Clock;
  /** Told after every change authentication depends on (this process's authenticator drops its cache). */
  onCredentialsChanged?: () => void;
}

/** Businesses, their verification status and their API keys: what the admin CLI manages. */
export class BusinessService {
  private readonly storage: Storage;
  private readonly box: SecretBox;
  private readonly clock: Clock;
  private readonly onCredentialsChanged: () => void;
  private readonly verificationListeners: Array<(businessId: string, change: VerificationChange) => unknown> =
    [];

  constructor(options: BusinessServiceOptions) {
    this.storage = options.storage;
    this.box = options.box;
    this.clock = options.now ?? Date.now;
    this.onCredentialsChanged = options.onCredentialsChanged ?? (() => {});
  }

  private now(): Date {
    return new Date(this.clock());
  }

  /**
   * Runs a change that authentication depends on, advancing the credentials epoch in the same
   * transaction: every process sees the change within EPOCH_CHECK_MS, this one at once.
   */
  private async changeCredentials<T>(work: (trx: Executor) => Promise<T>): Promise<T> {
    const result = await writeTransaction(this.storage, async (trx) => {
      const done = await work(trx);
      await advanceCounter(trx, CREDENTIALS_EPOCH, 1);
      return done;
    });
    this.onCredentialsChanged();
    return result;
  }

  async createBusiness(
    name: string,
    status: VerificationStatus = "not_submitted",
  ): Promise<{ business: BusinessRecord } & IssuedKeyPair> {
    if (!isVerificationStatus(status)) throw invalid(`unknown verification status: ${status}`);
    const business = this.newBusiness(name, status);
    const keys = await writeTransaction(this.storage, async (trx) => {
      await insertBusiness(trx, business);
      return this.insertKeyPair(trx, business.id, business.createdAt);
    });
    return { business, ...keys };
  }

  /**
   * A business signing itself up (the dashboard): not_submitted, and no keys until it asks;
   * `alsoInTransaction` writes its first user in the same transaction.
   */
  async registerBusiness(
    name: string,
    alsoInTransaction?: (trx: Executor, business: BusinessRecord) => Promise<void>,
  ): Promise<BusinessRecord> {
    const business = this.newBusiness(name, "not_submitted");
    await writeTransaction(this.storage, async (trx) => {
      await insertBusiness(trx, business);
      await alsoInTransaction?.(trx, business);
    });
    return business;
  }

  private newBusiness(name: string, status: VerificationStatus): BusinessRecord {
    // It becomes part of every account name and is printed by the CLI: the customer-name rules.
    const checkedName = parseBusinessName(name);
    const now = this.now().toISOString();
    return {
      id: randomUUID(),
      name: checkedName,
      verificationStatus: status,
      accountCount: 0,
      feeBasisPoints: 0,
      feeCapKobo: null,
      payoutFeeTiers: null,
      payoutsEnabled: 0,
      payoutLimitKobo: null,
      payoutDailyLimitKobo: null,
      timeZone: DEFAULT_TIME_ZONE,
      requireTwoFactor: 0,
      createdAt: now,
      updatedAt: now,
    };
  }

  /**
   * Moves the business through its verification lifecycle (see verification.ts), recording who
   * did it, when, from, to and why in the same transaction (with `alsoInTransaction`'s writes,
   * such as the details submitted). Returns the recorded change.
   */
  async setVerificationStatus(
    businessId: string,
    status: VerificationStatus,
    actor: Actor,
    reason?: string,
    alsoInTransaction?: (trx: Executor) => Promise<void>,
  ): Promise<VerificationChange> {
    if (!isVerificationStatus(status)) throw invalid(`unknown verification status: ${status}`);
    const change = await this.changeCredentials(async (trx) => {
      const business = await findBusiness(trx, businessId);
      if (!business) throw notFound(`no business with id ${businessId}`);
      const from = business.verificationStatus;
      // The operator's role as it is now, not as their session began: a demoted admin suspends nothing.
      const operator = actor.type === "operator" ? await findUser(trx, actor.id) : undefined;
      const operatorRole = operator?.disabledAt === null ? operator.operatorRole : null;
      const checked = checkTransition(from, status, actor, reason, operatorRole);
      const at = this.now().toISOString();
      // Still at `from`: a concurrent change of the same business is refused, never overwritten.
      if (!(await updateVerificationStatus(trx, businessId, from, status, at))) {
        throw new AppError(ErrorCode.CONFLICT, 409, "the business's status changed meanwhile; look again");
      }
      const event = {
        id: randomUUID(),
        businessId,
        fromStatus: from,
        toStatus: status,
        reason: checked.reason,
        actorType: actor.type,
        actorId: actor.id,
        createdAt: at,
      };
      await insertVerificationEvent(trx, event);
      await alsoInTransaction?.(trx);
      return toChange(event);
    });
    // Told once it is committed (the mail to the business's people): a listener's failure never changes the answer.
    for (const listener of this.verificationListeners) {
      await Promise.resolve()
        .then(() => listener(businessId, change))
        .catch(() => {});
    }
    return change;
  }

  /** Calls `listener` after each verification change is committed (the business's mail). */
  onVerificationChange(listener: (businessId: string, change: VerificationChange) => unknown): void {
    this.verificationListeners.push(listener);
  }

  /** Every change of the business's verification status, oldest first. */
  async verificationHistory(businessId: string): Promise<VerificationChange[]> {
    if (!(await findBusiness(this.storage.db, businessId)))
      throw notFound(`no business with id ${businessId}`);
    return (await listVerificationEvents(this.storage.db, businessId)).map(toChange);
  }

  async listBusinesses(): Promise<BusinessSummary[]> {
    return (await listBusinesses(this.storage.db)).map(businessSummary);
  }

  async getBusiness(businessId: string): Promise<BusinessSummary> {
    const row = await findBusiness(this.storage.db, businessId);
    if (!row) throw notFound(`no business with id ${businessId}`);
    return businessSummary(row);
  }

  async createKey(businessId: string): Promise<IssuedKeyPair> {
    return writeTransaction(this.storage, async (trx) => {
      if (!(await findBusiness(trx, businessId))) throw notFound(`no business with id ${businessId}`);
      return this.insertKeyPair(trx, businessId, this.now().toISOString());
    });
  }

  async listKeys(businessId: string): Promise<ApiKeySummary[]> {
    if (!(await findBusiness(this.storage.db, businessId)))
      throw notFound(`no business with id ${businessId}`);
    const rows = await listApiKeys(this.storage.db, businessId);
    return rows.map(apiKeySummary);
  }

  /**
   * The key named by its id, its display prefix or the whole API key (see parseKeyReference).
   * A prefix two keys share is refused (409) with their ids, never resolved to one of them.
   */
  async resolveKey(reference: string): Promise<ApiKeySummary & { businessId: string }> {
    const row = await findKey(this.storage.db, reference);
    return { ...apiKeySummary(row), businessId: row.businessId };
  }

  /**
   * Activates, deactivates or revokes a key, named as resolveKey accepts. Revocation is final:
   * a revoked key never changes again.
   */
  async setKeyStatus(reference: string, status: ApiKeyStatus): Promise<void> {
    if (!isApiKeyStatus(status)) throw invalid(`unknown key status: ${status}`);
    const key = await findKey(this.storage.db, reference);
    if (key.status === "revoked" && status === "revoked") return;
    const changed =
      key.status !== "revoked" &&
      (await this.changeCredentials((trx) =>
        updateApiKeyStatus(trx, key.id, status, this.now().toISOString()),
      ));
    if (!changed)
      throw new AppError(ErrorCode.CONFLICT, 409, "this API key is revoked; revocation is permanent");
  }

  /**
   * The dashboard's way to change a key: by its id, and only the business's own (any other key
   * is 404, as if it did not exist). The same rules as setKeyStatus.
   */
  async setOwnKeyStatus(businessId: string, keyId: string, status: ApiKeyStatus): Promise<ApiKeySummary> {
    const row = isUuid(keyId) ? await findApiKeyById(this.storage.db, keyId) : undefined;
    if (!row || row.businessId !== businessId) throw notFound("no such API key");
    await this.setKeyStatus(keyId, status);
    return { ...apiKeySummary(row), status };
  }

  /**
   * Sets the oldest signature version a key accepts: 2 refuses requests signed the
   * specification's way (version 1) with this key; 1 accepts both again.
   */
  async requireSignatureVersion(keyId: string, version: 1 | 2): Promise<void> {
    if (version !== 1 && version !== 2) throw invalid(`unknown signature version: ${String(version)}`);
    const updated = await this.changeCredentials((trx) =>
      updateMinSignatureVersion(trx, keyId, version, this.now().toISOString()),
    );
    if (!updated) throw notFound(`no API key with id ${keyId}`);
  }

  private async insertKeyPair(trx: Executor, businessId: string, now: string): Promise<IssuedKeyPair> {
    const pair = generateKeyPair();
    const id = randomUUID();
    const key: NewApiKey = {
      id,
      businessId,
      keyHash: hashApiKey(pair.apiKey),
      keyPrefix: displayPrefix(pair.apiKey),
      secretCiphertext: this.box.seal(pair.secretKey, secretContext(id)),
      status: "active",
      createdAt: now,
      updatedAt: now,
    };
    await insertApiKey(trx, key);
    return { keyId: id, ...pair };
  }
}
