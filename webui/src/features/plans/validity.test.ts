import { describe, expect, it } from 'vitest';
import { formatValidity, validityHours, validityParts } from './validity';

describe('plan validity', () => {
  it('reads the days HH:MM:SS text the server sends', () => {
    expect(validityHours('30 00:00:00')).toBe(720);
    expect(validityHours('30 days 00:00:00')).toBe(720);
    expect(validityHours('1 day, 12:00:00')).toBe(36);
    expect(validityHours('12:30:00')).toBe(12.5);
    expect(validityHours('7')).toBe(168);
    expect(validityHours('pronto')).toBeNull();
  });

  it('splits hours with 8760 per year, 720 per month and 24 per day', () => {
    expect(validityParts(8760)).toEqual({ years: 1, months: 0, days: 0, hours: 0 });
    expect(validityParts(8760 + 2 * 720 + 3 * 24 + 5)).toEqual({ years: 1, months: 2, days: 3, hours: 5 });
  });

  it('shows a year of 365 days as one year and 30 days as one month', () => {
    expect(formatValidity('365 days 00:00:00')).toBe('1 año');
    expect(formatValidity('30 days 00:00:00')).toBe('1 mes');
    expect(formatValidity('90 days 00:00:00')).toBe('3 meses');
  });

  it('joins several units in Spanish', () => {
    expect(formatValidity('730 days 00:00:00')).toBe('2 años');
    expect(formatValidity('400 days 00:00:00')).toBe('1 año, 1 mes y 5 días');
    expect(formatValidity('31 days 00:00:00')).toBe('1 mes y 1 día');
    expect(formatValidity('7 days 00:00:00')).toBe('7 días');
  });

  it('shows hours only for plans shorter than a day', () => {
    expect(formatValidity('0 days 12:00:00')).toBe('12 horas');
    expect(formatValidity('01:00:00')).toBe('1 hora');
  });

  it('keeps an unreadable text as it came', () => {
    expect(formatValidity('ilimitado')).toBe('ilimitado');
  });
});
