// Times as a person in a place reads them (issue 28, item 7): a business's pages show every
// instant in its time zone (Africa/Lagos, WAT, unless it chose another), with the zone named;
// filters typed in local minutes mean that zone's minutes. The API and exports stay in UTC.

/** The time zone a business starts with, and the console's. */
export const DEFAULT_TIME_ZONE = "Africa/Lagos";

const formats = new Map<string, Intl.DateTimeFormat>();

/** One formatter per zone (building one costs more than using it). */
function formatOf(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-NG", {
      timeZone: zone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    });
    formats.set(zone, format);
  }
  return format;
}

/** Whether `zone` is an IANA time zone this runtime knows ("Africa/Lagos", "Europe/London"). */
export function isTimeZone(zone: string): boolean {
  if (zone.length === 0 || zone.length > 64) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Every time zone the setting offers: UTC, then the runtime's, by region. */
export const TIME_ZONES: readonly string[] = ["UTC", ...Intl.supportedValuesOf("timeZone")];

/**
 * `zone` spelled as the setting's list spells it ("africa/lagos" is "Africa/Lagos"), or as the
 * runtime resolves a name the list does not hold (an alias such as "Asia/Kolkata", which this
 * runtime lists as "Asia/Calcutta"); undefined when it is no time zone.
 */
export function canonicalTimeZone(zone: string): string | undefined {
  if (!isTimeZone(zone)) return undefined;
  const lower = zone.toLowerCase();
  return (
    TIME_ZONES.find((listed) => listed.toLowerCase() === lower) ??
    new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone
  );
}

export interface ZonedParts {
  /** `YYYY-MM-DD` */
  date: string;
  /** `HH:MM:SS`, 00 to 23 hours. */
  time: string;
  /** What the zone is called then: `WAT`, `GMT+1`, `BST`. */
  zoneName: string;
}

/** The instant's date, time and zone name in `zone`. */
export function zonedParts(instant: number, zone: string): ZonedParts {
  const parts: Record<string, string> = {};
  for (const part of formatOf(zone).formatToParts(instant)) parts[part.type] = part.value;
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    time: `${parts.hour}:${parts.minute}:${parts.second}`,
    zoneName: parts.timeZoneName ?? zone,
  };
}

/**
 * An ISO instant as its zone's minute, named: `2026-11-27 07:31 WAT` (with `seconds`,
 * `07:31:05 WAT`). What is not an instant is shown as it is.
 */
export function zonedTime(iso: string, zone: string, options: { seconds?: boolean } = {}): string {
  const instant = Date.parse(iso);
  if (Number.isNaN(instant)) return iso;
  const { date, time, zoneName } = zonedParts(instant, zone);
  return `${date} ${options.seconds ? time : time.slice(0, 5)} ${zoneName}`;
}

/** The zone's offset from UTC at `instant`, in milliseconds (WAT: +3,600,000). */
export function offsetAt(instant: number, zone: string): number {
  const { date, time } = zonedParts(instant, zone);
  return Date.parse(`${date}T${time}.000Z`) - (instant - (instant % 1000));
}

const LOCAL_MINUTE = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})$/;

/**
 * A minute typed in `zone` (a datetime-local field's `YYYY-MM-DDTHH:MM`) as the UTC instant it
 * names, with `seconds` appended (`:00.000` for the start of the minute, `:59.999` for its end),
 * or undefined when it is not such a minute. A minute that a clock change skips is read with the
 * offset before the change; one it repeats, as its first occurrence.
 */
export function zonedMinuteToUtc(local: string, zone: string, seconds = ":00.000"): string | undefined {
  const match = LOCAL_MINUTE.exec(local);
  if (!match) return undefined;
  const asUtc = Date.parse(`${match[1]}T${match[2]}${seconds}Z`);
  if (Number.isNaN(asUtc)) return undefined;
  // The zone's offsets half a day either side cover any clock change near the minute: of the
  // instants they give, those that read back as the typed minute, the earliest; none (a minute
  // the change skipped), the offset before it.
  const before = asUtc - offsetAt(asUtc - 43_200_000, zone);
  const after = asUtc - offsetAt(asUtc + 43_200_000, zone);
  const typed = `${match[1]}T${match[2]}`;
  const readsBack = [before, after].filter(
    (instant) => utcToZonedMinute(new Date(instant).toISOString(), zone) === typed,
  );
  return new Date(readsBack.length > 0 ? Math.min(...readsBack) : before).toISOString();
}

/** An ISO instant as `zone`'s minute for a datetime-local field (`YYYY-MM-DDTHH:MM`). */
export function utcToZonedMinute(iso: string, zone: string): string {
  const instant = Date.parse(iso);
  if (Number.isNaN(instant)) return "";
  const { date, time } = zonedParts(instant, zone);
  return `${date}T${time.slice(0, 5)}`;
}
