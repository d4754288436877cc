import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { fetchMonthUsage } from '../api/usage';
import { MONTH_USAGE_REFRESH_MS, useMonthUsage } from './use-month-usage';

vi.mock('../api/usage', () => ({ fetchMonthUsage: vi.fn() }));

let hidden = false;

function showTab(value: boolean) {
  hidden = !value;
  act(() => {
    document.dispatchEvent(new Event('visibilitychange'));
  });
}

beforeEach(() => {
  vi.useFakeTimers();
  hidden = false;
  vi.spyOn(document, 'visibilityState', 'get').mockImplementation(() => (hidden ? 'hidden' : 'visible'));
  vi.mocked(fetchMonthUsage).mockResolvedValue([]);
});

afterEach(() => {
  vi.useRealTimers();
});

it('reads the month once, then every ten minutes while the tab is shown', () => {
  renderHook(() => useMonthUsage());
  expect(fetchMonthUsage).toHaveBeenCalledTimes(1);
  act(() => vi.advanceTimersByTime(MONTH_USAGE_REFRESH_MS - 1));
  expect(fetchMonthUsage).toHaveBeenCalledTimes(1);
  act(() => vi.advanceTimersByTime(1));
  expect(fetchMonthUsage).toHaveBeenCalledTimes(2);
});

it('reads nothing while the tab is hidden, and once when it is shown after that long', () => {
  renderHook(() => useMonthUsage());
  showTab(false);
  act(() => vi.advanceTimersByTime(3 * MONTH_USAGE_REFRESH_MS));
  expect(fetchMonthUsage).toHaveBeenCalledTimes(1);
  showTab(true);
  expect(fetchMonthUsage).toHaveBeenCalledTimes(2);
  // Shown again soon after a read: nothing new to read yet.
  showTab(false);
  showTab(true);
  expect(fetchMonthUsage).toHaveBeenCalledTimes(2);
});
