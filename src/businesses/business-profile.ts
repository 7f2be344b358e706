import type { Clock } from "../clock.js";
import type { Actor } from "../core/actor.js";
import type { BusinessProfile } from "../core/business-record.js";
import { checkForm, emailField } from "../core/form-fields.js";
import { check } from "../core/validation.js";
import { canonicalTimeZone } from "../core/zoned-time.js";
import { formTextSchema } from "../display-name.js";
import { validationFailed } from "../errors.js";
import { updateTimeZone } from "../storage/business-repository.js";
import type { Storage } from "../storage/database.js";
import { writeTransaction } from "../storage/transactions.js";
import { findBusinessProfile, insertActorAudit, upsertBusinessProfile } from "../storage/user-repository.js";
import type { BusinessService, VerificationChange } from "./business-service.js";

export type { BusinessProfile };

/** A field shown to people (operators read it): the display-text rule, line breaks folded. */
const text = (label: string, max: number) => (value: string) => check(formTextSchema(label, max), value);

// Each field by the label the form gives it: every problem at once, in those words.
const PROFILE_FIELDS = {
  registeredName: { label: "Registered name", check: text("Registered name", 200) },
  rcNumber: {
    label: "RC number",
    check: (value: string) => {
      const rc = value.trim().toUpperCase().replace(/\s+/g, "");
      if (/^(RC|BN|IT)?\d{4,8}$/.test(rc)) return rc;
      throw validationFailed(
        "RC number is RC, BN or IT and 4 to 8 digits, as on the CAC certificate (for example RC1234567)",
      );
    },
  },
  address: { label: "Registered address", check: text("Registered address", 300) },
  contactName: { label: "Contact person", check: text("Contact person", 100) },
  contactEmail: { label: "Contact email", check: emailField("Contact email") },
  contactPhone: {
    label: "Contact phone",
    check: (value: string) => {
      const phone = value.replace(/[\s()-]/g, "");
      if (/^\+?\d{7,15}$/.test(phone)) return phone;
      throw validationFailed("Contact phone is 7 to 15 digits, with + first for an international number");
    },
  },
};

/** Validates a submission: the details, or one 400 naming every field that needs a change. */
export function parseBusinessProfile(input: Record<string, unknown>): Omit<BusinessProfile, "submittedAt"> {
  return checkForm(input, PROFILE_FIELDS);
}

/**
 * What a business submits for verification, and the submission itself: the details and the
 * move to in_progress in one transaction, the lifecycle's rules deciding whether the move is
 * allowed (verification.ts), whoever asks.
 */
export class BusinessProfiles {
  constructor(
    private readonly storage: Storage,
    private readonly businesses: BusinessService,
    private readonly now: Clock = Date.now,
  ) {}

  /**
   * Sets the time zone the business's pages show times in: an IANA name the runtime knows,
   * kept as the runtime spells it; anything else is a 400 in the words of the form.
   */
  async setTimeZone(businessId: string, actor: Actor, zone: string): Promise<string> {
    const canonical = canonicalTimeZone(zone.trim());
    if (!canonical) throw validationFailed("Time zone must be one from the list, like Africa/Lagos");
    const at = new Date(this.now()).toISOString();
    await writeTransaction(this.storage, async (trx) => {
      await updateTimeZone(trx, businessId, canonical, at);
      await insertActorAudit(trx, {
        actor,
        businessId,
        action: "business.time_zone_changed",
        detail: { timeZone: canonical },
        at,
      });
    });
    return canonical;
  }

  /** Submits (or, after a rejection, resubmits) the business's details. */
  async submit(
    businessId: string,
    actor: Actor,
    input: Record<string, unknown>,
  ): Promise<VerificationChange> {
    const profile = parseBusinessProfile(input);
    const submittedAt = new Date(this.now()).toISOString();
    return this.businesses.setVerificationStatus(businessId, "in_progress", actor, undefined, (trx) =>
      upsertBusinessProfile(trx, businessId, { ...profile, submittedAt }),
    );
  }

  /** The business's latest submission, if any. */
  find(businessId: string): Promise<BusinessProfile | undefined> {
    return findBusinessProfile(this.storage.db, businessId);
  }
}
