/** Guest calls of the account pages: login, status check, registration, recovery, reset and email verification. */
import { api } from '../../../lib/api';

export interface LoginRequest {
  username: string;
  password: string;
  remember: boolean;
  /** Sent once the server asked for a captcha (`captcha_required`). */
  captcha_token?: string;
}

export interface LoginAnswer {
  access: string;
  refresh: string;
  message?: string;
  success?: boolean;
}

export interface RegisterRequest {
  username: string;
  password: string;
  captcha_token: string;
  email?: string;
}

export interface MessageAnswer {
  success?: boolean;
  message?: string;
}

export function login(request: LoginRequest): Promise<LoginAnswer> {
  return api.post<LoginAnswer>('/api/client/login', request, { auth: false });
}

export function fetchStatus(signal?: AbortSignal): Promise<{ maintenance: boolean }> {
  return api.get<{ maintenance: boolean }>('/api/client/status', { auth: false, signal });
}

export function register(request: RegisterRequest): Promise<MessageAnswer> {
  return api.put<MessageAnswer>('/api/client/register', request, { auth: false });
}

export function requestPasswordRecovery(username: string): Promise<MessageAnswer> {
  return api.post<MessageAnswer>('/api/client/password-recovery', { username }, { auth: false });
}

export function resetPassword(token: string, password: string): Promise<MessageAnswer> {
  return api.post<MessageAnswer>('/api/client/password-reset', { token, password }, { auth: false });
}

export function verifyEmail(token: string): Promise<MessageAnswer> {
  return api.post<MessageAnswer>('/api/client/verify-email', { token }, { auth: false });
}
