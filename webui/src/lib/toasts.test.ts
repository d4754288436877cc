import { notifications } from '@mantine/notifications';
import { describe, expect, it, vi } from 'vitest';
import { publicToast, toast } from './toasts';

function autoCloseOf(show: () => unknown): unknown {
  const spy = vi.spyOn(notifications, 'show').mockReturnValue('id');
  spy.mockClear();
  show();
  return spy.mock.calls[0]?.[0].autoClose;
}

describe('toast durations (docs/contract.md#constants)', () => {
  it('keeps dashboard toasts 5 s and success toasts 3 s', () => {
    expect(autoCloseOf(() => toast.error('x'))).toBe(5000);
    expect(autoCloseOf(() => toast.info('x'))).toBe(5000);
    expect(autoCloseOf(() => toast.success('x'))).toBe(3000);
  });

  it('keeps public-form blank and error toasts 4 s and success 2 s', () => {
    expect(autoCloseOf(() => publicToast.blank('x'))).toBe(4000);
    expect(autoCloseOf(() => publicToast.error('x'))).toBe(4000);
    expect(autoCloseOf(() => publicToast.success('x'))).toBe(2000);
  });

  it('keeps loading toasts until dismissed', () => {
    expect(autoCloseOf(() => toast.loading('x'))).toBe(false);
    expect(autoCloseOf(() => publicToast.loading('x'))).toBe(false);
  });
});
