import type { BusinessService } from "../businesses/business-service.js";
import type { ForBusiness } from "../core/actor.js";
import { AppError, ErrorCode } from "../errors.js";
import type { Surface } from "./sign-in.js";

// The business dashboard's scope, for the pages that register routes under it: where it is,
// and the business a signed-in user acts for.

/** The business dashboard: where its users sign in and land. */
export const BUSINESS_SURFACE: Surface = {
  role: "business",
  base: "/dashboard",
  home: "/dashboard/home",
  name: "business dashboard",
};

/** A business user's session always names its business. */
export function ownBusiness(businessId: string | null): string {
  if (!businessId) throw new AppError(ErrorCode.NOT_FOUND, 404, "This user has no business");
  return businessId;
}

/** The business a signed-in user acts for, named as the domain's calls take it. */
export async function actingFor(
  businesses: BusinessService,
  businessId: string | null,
): Promise<ForBusiness> {
  const summary = await businesses.getBusiness(ownBusiness(businessId));
  return { businessId: summary.businessId, businessName: summary.name };
}
