/** The registration captcha: loads hCaptcha, Turnstile or reCAPTCHA from its provider and reports the token. */
import { Box, Text } from '@mantine/core';
import { useEffect, useRef, useState } from 'react';
import type { CaptchaProvider } from '../../../lib/public-config';

/** The explicit-render API the three providers share. */
interface CaptchaApi {
  render: (container: HTMLElement, options: Record<string, unknown>) => string | number;
  reset: (widgetId?: string | number) => void;
}

const PROVIDERS: Record<CaptchaProvider, { global: string; script: (onload: string) => string }> = {
  hcaptcha: { global: 'hcaptcha', script: (onload) => `https://js.hcaptcha.com/1/api.js?render=explicit&onload=${onload}` },
  turnstile: {
    global: 'turnstile',
    script: (onload) => `https://challenges.cloudflare.com/turnstile/v0/api.js?render=explicit&onload=${onload}`,
  },
  recaptcha: {
    global: 'grecaptcha',
    script: (onload) => `https://www.google.com/recaptcha/api.js?render=explicit&onload=${onload}`,
  },
};

type CaptchaWindow = Window & Record<string, unknown>;

/** The configuration names its provider with any string (the OpenAPI document says no more); others fail to load. */
function isKnownProvider(provider: string): provider is CaptchaProvider {
  return Object.hasOwn(PROVIDERS, provider);
}

function providerApi(provider: CaptchaProvider): CaptchaApi | null {
  const candidate = (window as unknown as CaptchaWindow)[PROVIDERS[provider].global] as CaptchaApi | undefined;
  return candidate && typeof candidate.render === 'function' ? candidate : null;
}

const loading = new Map<CaptchaProvider, Promise<CaptchaApi>>();

/** Adds the provider's script once and resolves when its explicit-render API is ready. */
function loadProvider(provider: CaptchaProvider): Promise<CaptchaApi> {
  const ready = providerApi(provider);
  if (ready) return Promise.resolve(ready);
  let promise = loading.get(provider);
  if (!promise) {
    promise = new Promise<CaptchaApi>((resolve, reject) => {
      const onload = `__captchaReady_${provider}`;
      (window as unknown as CaptchaWindow)[onload] = () => {
        const api = providerApi(provider);
        if (api) resolve(api);
        else reject(new Error('captcha API missing'));
      };
      const script = document.createElement('script');
      script.src = PROVIDERS[provider].script(onload);
      script.async = true;
      script.defer = true;
      script.onerror = () => {
        loading.delete(provider);
        reject(new Error('captcha script failed'));
      };
      document.head.appendChild(script);
    });
    loading.set(provider, promise);
  }
  return promise;
}

interface Props {
  provider: string;
  siteKey: string;
  onToken: (token: string | null) => void;
  /** Incremented by the form after each attempt: the challenge is reset (tokens are single use). */
  resetCount: number;
}

export function CaptchaWidget({ provider, siteKey, onToken, resetCount }: Props) {
  const container = useRef<HTMLDivElement>(null);
  const widget = useRef<{ api: CaptchaApi; id: string | number } | null>(null);
  const onTokenRef = useRef(onToken);
  onTokenRef.current = onToken;
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let cancelled = false;
    (isKnownProvider(provider) ? loadProvider(provider) : Promise.reject(new Error(`unknown captcha provider ${provider}`)))
      .then((api) => {
        if (cancelled || !container.current) return;
        container.current.innerHTML = '';
        const id = api.render(container.current, {
          sitekey: siteKey,
          callback: (token: string) => onTokenRef.current(token),
          'expired-callback': () => onTokenRef.current(null),
          'error-callback': () => onTokenRef.current(null),
        });
        widget.current = { api, id };
      })
      .catch(() => {
        if (!cancelled) setFailed(true);
      });
    return () => {
      cancelled = true;
      widget.current = null;
    };
  }, [provider, siteKey]);

  useEffect(() => {
    if (resetCount === 0 || !widget.current) return;
    widget.current.api.reset(widget.current.id);
    onTokenRef.current(null);
  }, [resetCount]);

  return (
    <Box>
      <div ref={container} data-testid="captcha" />
      {failed && (
        <Text c="red" size="sm">
          No se pudo cargar el captcha. Recargue la página.
        </Text>
      )}
    </Box>
  );
}
