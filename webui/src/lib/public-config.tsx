/** The public configuration (`GET /api/client`): switches, product name, support URL and captcha settings. */
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { PublicConfig } from '../api/types';
import { ApiError, api } from './api';

export type { PublicConfig } from '../api/types';

/** The captcha services the client knows (`captcha.provider`; the document says only that it is a string). */
export type CaptchaProvider = 'hcaptcha' | 'turnstile' | 'recaptcha';

export const FALLBACK_PRODUCT_NAME = 'VPN Service';

/** What the app knows about the config: still loading, loaded, the server in maintenance (503), or unreachable. */
export type PublicConfigState =
  | { status: 'loading' }
  /** `readAt`: when the config was read from the server (Date.now()); absent when a test passed it in. */
  | { status: 'ready'; config: PublicConfig; readAt?: number }
  | { status: 'maintenance' }
  | { status: 'error'; message: string };

export function fetchPublicConfig(signal?: AbortSignal): Promise<PublicConfig> {
  return api.get<PublicConfig>('/api/client', { auth: false, signal });
}

interface PublicConfigContextValue {
  state: PublicConfigState;
  reload: () => Promise<void>;
  /** Called when any call answers 503, so the gate sends the user to /maintenance. */
  markMaintenance: () => void;
}

const PublicConfigContext = createContext<PublicConfigContextValue | null>(null);

export function PublicConfigProvider({
  children,
  initialState,
}: {
  children: ReactNode;
  /** Tests pass a ready config instead of answering the call. */
  initialState?: PublicConfigState;
}) {
  const [state, setState] = useState<PublicConfigState>(initialState ?? { status: 'loading' });

  const reload = useCallback(async () => {
    try {
      const config = await fetchPublicConfig();
      setState({
        status: 'ready',
        config: { ...config, product_name: config.product_name || FALLBACK_PRODUCT_NAME },
        readAt: Date.now(),
      });
    } catch (error) {
      if (error instanceof ApiError && error.status === 503) setState({ status: 'maintenance' });
      else setState({ status: 'error', message: error instanceof ApiError ? error.message : '' });
    }
  }, []);

  const markMaintenance = useCallback(() => {
    setState((current) =>
      current.status === 'ready' ? { ...current, config: { ...current.config, maintenance: true } } : { status: 'maintenance' },
    );
  }, []);

  useEffect(() => {
    if (!initialState) void reload();
  }, [initialState, reload]);

  const value = useMemo(() => ({ state, reload, markMaintenance }), [state, reload, markMaintenance]);
  return <PublicConfigContext.Provider value={value}>{children}</PublicConfigContext.Provider>;
}

export function usePublicConfigState(): PublicConfigContextValue {
  const value = useContext(PublicConfigContext);
  if (!value) throw new Error('usePublicConfigState outside PublicConfigProvider');
  return value;
}

/** The loaded config; pages render only after the app shell has it (see AppGate), so it is always present there. */
export function usePublicConfig(): PublicConfig {
  const { state } = usePublicConfigState();
  if (state.status !== 'ready') throw new Error('usePublicConfig before the config loaded');
  return state.config;
}

/** The product name, with the contract's fallback (docs/contract.md#product) while the config is not loaded. */
export function useProductName(): string {
  const { state } = usePublicConfigState();
  return state.status === 'ready' ? state.config.product_name : FALLBACK_PRODUCT_NAME;
}
