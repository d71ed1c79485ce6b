import { describe, expect, it } from 'vitest';
import { splitValidity, validityToSeconds } from './validity.ts';

describe('splitValidity', () => {
  it('reads 30 days as one month', () => {
    expect(splitValidity('30 days 00:00:00')).toEqual({ years: 0, months: 1, days: 0 });
  });
  it('reads 365 days as one year', () => {
    expect(splitValidity('365 days 00:00:00')).toEqual({ years: 1, months: 0, days: 0 });
  });
  it('reads 400 days as one year, one month and five days', () => {
    expect(splitValidity('400 days 00:00:00')).toEqual({ years: 1, months: 1, days: 5 });
  });
  it('counts the hours part', () => {
    expect(splitValidity('6 days 24:00:00')).toEqual({ years: 0, months: 0, days: 7 });
  });
  it('refuses text that is not a validity', () => {
    expect(splitValidity('un mes')).toBeNull();
    expect(validityToSeconds('1 day 01:00:00')).toBe(90000);
  });
});
