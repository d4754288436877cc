/** Toast helpers with the contract's durations (docs/contract.md#constants): dashboard 5 s / 3 s, public forms 4 s / 2 s, loading sticky. */
import { notifications } from '@mantine/notifications';

export const TOAST_LIMIT = 20;
export const DASHBOARD_TOAST_MS = 5000;
export const DASHBOARD_SUCCESS_TOAST_MS = 3000;
export const PUBLIC_ERROR_TOAST_MS = 4000;
export const PUBLIC_SUCCESS_TOAST_MS = 2000;

/** Dashboard toasts. */
export const toast = {
  success: (message: string) =>
    notifications.show({ message, color: 'green', autoClose: DASHBOARD_SUCCESS_TOAST_MS }),
  error: (message: string) => notifications.show({ message, color: 'red', autoClose: DASHBOARD_TOAST_MS }),
  info: (message: string) => notifications.show({ message, color: 'blue', autoClose: DASHBOARD_TOAST_MS }),
  /** A loading toast stays until `done` replaces it (e.g. when the push message for the operation arrives). */
  loading: (message: string): string =>
    notifications.show({ message, loading: true, autoClose: false, withCloseButton: false }),
  dismiss: (id: string) => notifications.hide(id),
};

/** Toasts of the public forms (login, register, recovery). */
export const publicToast = {
  success: (message: string) => notifications.show({ message, color: 'green', autoClose: PUBLIC_SUCCESS_TOAST_MS }),
  error: (message: string) => notifications.show({ message, color: 'red', autoClose: PUBLIC_ERROR_TOAST_MS }),
  /** Blank-field warnings share the error duration. */
  blank: (message: string) => notifications.show({ message, color: 'yellow', autoClose: PUBLIC_ERROR_TOAST_MS }),
  loading: (message: string): string =>
    notifications.show({ message, loading: true, autoClose: false, withCloseButton: false }),
  dismiss: (id: string) => notifications.hide(id),
};
