/**
 * The captcha of the login forms (customer and manager). The server asks for it once an account has had a few
 * failed logins, and only when a captcha is configured: it answers 422 `captcha_required` (or `captcha_failed` for a
 * token the provider refused). From then on the form shows the widget and sends the solved token with every try.
 */
import { useState, type ReactNode } from 'react';
import { ApiError } from '../../../lib/api';
import { usePublicConfig } from '../../../lib/public-config';
import { CaptchaWidget } from './CaptchaWidget';

export const LOGIN_CAPTCHA_MESSAGE = 'Por favor, complete el captcha.';

const ASKING_CODES = new Set(['captcha_required', 'captcha_failed']);

export interface LoginCaptcha {
  /** The widget, while the server asks for a captcha; null otherwise. */
  widget: ReactNode;
  /** The contract's message (docs/contract.md#validation) when the widget is shown and not solved yet; null when the form may be sent. */
  problem: () => string | null;
  /** What the login body carries: the solved token, or nothing. */
  field: () => { captcha_token?: string };
  /** After every try: an answer asking for the captcha shows the widget; a shown widget gets a new challenge. */
  afterAttempt: (error?: unknown) => void;
}

export function useLoginCaptcha(): LoginCaptcha {
  const config = usePublicConfig();
  const [asked, setAsked] = useState(false);
  const [token, setToken] = useState<string | null>(null);
  const [resets, setResets] = useState(0);
  const shown = asked && config.captcha !== null;

  return {
    widget:
      shown && config.captcha ? (
        <CaptchaWidget
          provider={config.captcha.provider}
          siteKey={config.captcha.site_key}
          onToken={setToken}
          resetCount={resets}
        />
      ) : null,
    problem: () => (shown && !token ? LOGIN_CAPTCHA_MESSAGE : null),
    field: () => (shown && token ? { captcha_token: token } : {}),
    afterAttempt: (error?: unknown) => {
      // Tokens are single use: a new challenge after every try that sent one.
      if (shown) setResets((n) => n + 1);
      if (error instanceof ApiError && error.code && ASKING_CODES.has(error.code)) setAsked(true);
    },
  };
}
