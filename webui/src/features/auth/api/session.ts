/** Guest calls of the account pages: login, status check, registration, recovery, reset and email verification. */
import type {
  LoginAnswer,
  LoginRequest,
  MessageAnswer,
  PasswordResetRequest,
  RecoveryRequest,
  RegisterRequest,
  ServiceStatus,
  VerifyEmailRequest,
} from '../../../api/types';
import { api } from '../../../lib/api';

export type { LoginAnswer, LoginRequest, MessageAnswer, RegisterRequest } from '../../../api/types';

export function login(request: LoginRequest): Promise<LoginAnswer> {
  return api.post<LoginAnswer>('/api/client/login', request, { auth: false });
}

export function fetchStatus(signal?: AbortSignal): Promise<ServiceStatus> {
  return api.get<ServiceStatus>('/api/client/status', { auth: false, signal });
}

export function register(request: RegisterRequest): Promise<MessageAnswer> {
  return api.put<MessageAnswer>('/api/client/register', request, { auth: false });
}

export function requestPasswordRecovery(username: string): Promise<MessageAnswer> {
  return api.post<MessageAnswer>('/api/client/password-recovery', { username } satisfies RecoveryRequest, { auth: false });
}

export function resetPassword(token: string, password: string): Promise<MessageAnswer> {
  return api.post<MessageAnswer>('/api/client/password-reset', { token, password } satisfies PasswordResetRequest, { auth: false });
}

export function verifyEmail(token: string): Promise<MessageAnswer> {
  return api.post<MessageAnswer>('/api/client/verify-email', { token } satisfies VerifyEmailRequest, { auth: false });
}
