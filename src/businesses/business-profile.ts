import { z } from "zod";
import type { Clock } from "../clock.js";
import type { Actor } from "../core/actor.js";
import { emailSchema } from "../core/validation.js";
import { formTextSchema } from "../display-name.js";
import { validationFailed } from "../errors.js";
import type { Storage } from "../storage/database.js";
import {
  type BusinessProfileRow,
  findBusinessProfile,
  upsertBusinessProfile,
} from "../storage/user-repository.js";
import type { BusinessService, VerificationChange } from "./business-service.js";

/** What a business submits to be verified. */
export interface BusinessProfile {
  registeredName: string;
  /** The Corporate Affairs Commission registration number: RC (companies) or BN (business names), then digits. */
  rcNumber: string;
  address: string;
  contactName: string;
  contactEmail: string;
  contactPhone: string;
  submittedAt: string;
}

/** A required field shown to people (operators read it): the display-text rule, line breaks folded. */
const text = (label: string, max: number) =>
  z
    .string({ error: `${label} is required` })
    .pipe(formTextSchema(label, max))
    .pipe(z.string().min(1, { error: `${label} is required` }));

const profileSchema = z.object({
  registeredName: text("the registered name", 200),
  rcNumber: z
    .string({ error: "the RC number is required" })
    .transform((value) => value.trim().toUpperCase().replace(/\s+/g, ""))
    .pipe(
      z.string().regex(/^(RC|BN|IT)?\d{4,8}$/, {
        error: "the RC number is RC, BN or IT and 4 to 8 digits (for example RC1234567)",
      }),
    ),
  address: text("the address", 300),
  contactName: text("the contact's name", 100),
  contactEmail: emailSchema,
  contactPhone: z
    .string({ error: "the contact's phone number is required" })
    .transform((value) => value.replace(/[\s()-]/g, ""))
    .pipe(
      z
        .string()
        .regex(/^\+?\d{7,15}$/, { error: "the phone number is 7 to 15 digits, + first if international" }),
    ),
});

/** Validates a submission: the first problem, in form order, is the 400's message. */
export function parseBusinessProfile(input: Record<string, unknown>): Omit<BusinessProfile, "submittedAt"> {
  const parsed = profileSchema.safeParse(input);
  if (!parsed.success) throw validationFailed(parsed.error.issues[0]?.message ?? "the details are not valid");
  return parsed.data;
}

const toProfile = (row: BusinessProfileRow): BusinessProfile => ({
  registeredName: row.registered_name,
  rcNumber: row.rc_number,
  address: row.address,
  contactName: row.contact_name,
  contactEmail: row.contact_email,
  contactPhone: row.contact_phone,
  submittedAt: row.submitted_at,
});

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

  /** Submits (or, after a rejection, resubmits) the business's details. */
  async submit(
    businessId: string,
    actor: Actor,
    input: Record<string, unknown>,
  ): Promise<VerificationChange> {
    const profile = parseBusinessProfile(input);
    const submittedAt = new Date(this.now()).toISOString();
    return this.businesses.setVerificationStatus(businessId, "in_progress", actor, undefined, (trx) =>
      upsertBusinessProfile(trx, {
        business_id: businessId,
        registered_name: profile.registeredName,
        rc_number: profile.rcNumber,
        address: profile.address,
        contact_name: profile.contactName,
        contact_email: profile.contactEmail,
        contact_phone: profile.contactPhone,
        submitted_at: submittedAt,
      }),
    );
  }

  /** The business's latest submission, if any. */
  async find(businessId: string): Promise<BusinessProfile | undefined> {
    const row = await findBusinessProfile(this.storage.db, businessId);
    return row && toProfile(row);
  }
}
