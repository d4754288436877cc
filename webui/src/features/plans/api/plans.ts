/** `GET /api/client/plans`: the plan catalogue (anonymous on the public page, with the session in the dashboard). */
import { api } from '../../../lib/api';

export interface Plan {
  /** Opaque server id, kept as received. */
  id: string | number;
  name: string;
  /** Sentences separated by '. ', each shown as a bullet. */
  description: string;
  /** 'days HH:MM:SS' text. */
  validity: string;
  price: number | string;
}

export function fetchPlans(auth: boolean, signal?: AbortSignal): Promise<Plan[]> {
  return api.get<Plan[]>('/api/client/plans', { auth, signal });
}
