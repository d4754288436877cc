/** Converts a plan's validity text ('days HH:MM:SS') to years, months and days (8760 / 720 / 24 hours each). */

export const HOURS_PER_YEAR = 8760;
export const HOURS_PER_MONTH = 720;
export const HOURS_PER_DAY = 24;

/** Total hours of a validity text such as '365 00:00:00', '30 days, 0:00:00', '1 day 12:00:00' or '12:00:00'. */
export function validityHours(text: string): number | null {
  const match = /^\s*(?:(\d+)\s*(?:days?)?,?\s+)?(\d+):(\d{1,2})(?::(\d{1,2})(?:\.\d+)?)?\s*$/i.exec(text);
  if (!match) {
    const daysOnly = /^\s*(\d+)\s*(?:days?)?\s*$/i.exec(text);
    return daysOnly ? Number(daysOnly[1]) * HOURS_PER_DAY : null;
  }
  const [, days = '0', hours = '0', minutes = '0'] = match;
  return Number(days) * HOURS_PER_DAY + Number(hours) + Number(minutes) / 60;
}

export interface ValidityParts {
  years: number;
  months: number;
  days: number;
  hours: number;
}

export function validityParts(totalHours: number): ValidityParts {
  let rest = Math.floor(totalHours);
  const years = Math.floor(rest / HOURS_PER_YEAR);
  rest -= years * HOURS_PER_YEAR;
  const months = Math.floor(rest / HOURS_PER_MONTH);
  rest -= months * HOURS_PER_MONTH;
  const days = Math.floor(rest / HOURS_PER_DAY);
  rest -= days * HOURS_PER_DAY;
  return { years, months, days, hours: rest };
}

function unit(count: number, singular: string, plural: string): string {
  return `${count} ${count === 1 ? singular : plural}`;
}

function joinSpanish(parts: string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} y ${parts[parts.length - 1]}`;
}

/** Spanish text for a validity, e.g. '1 año', '1 mes y 5 días'; hours appear only for plans shorter than a day. */
export function formatValidity(text: string): string {
  const hours = validityHours(text);
  if (hours === null) return text;
  const parts = validityParts(hours);
  const words: string[] = [];
  if (parts.years) words.push(unit(parts.years, 'año', 'años'));
  if (parts.months) words.push(unit(parts.months, 'mes', 'meses'));
  if (parts.days) words.push(unit(parts.days, 'día', 'días'));
  if (words.length === 0) return unit(parts.hours, 'hora', 'horas');
  return joinSpanish(words);
}
