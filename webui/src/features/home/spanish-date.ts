/** Spanish long dates ('21 de noviembre de 2026') for announcements. */
const longDate = new Intl.DateTimeFormat('es-ES', { day: 'numeric', month: 'long', year: 'numeric' });

export function spanishLongDate(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : longDate.format(date);
}
