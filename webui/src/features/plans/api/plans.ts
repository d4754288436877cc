/** `GET /api/client/plans`: the plan catalogue (anonymous on the public page, with the session in the dashboard). */
import type { Plan } from '../../../api/types';
import { api } from '../../../lib/api';

export type { Plan } from '../../../api/types';

export function fetchPlans(auth: boolean, signal?: AbortSignal): Promise<Plan[]> {
  return api.get<Plan[]>('/api/client/plans', { auth, signal });
}
