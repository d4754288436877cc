/**
 * The one "narrow screen" of the web client: below 1024 px tables give way to cards or to a name with a detail line
 * (docs/webui.md, "Every screen fits"). The contract says 768 px (docs/contract.md#constants), but from 768 px the
 * navigation takes 220 px and a table with several columns no longer fits beside it until 1024 px.
 */
import { useMediaQuery } from '@mantine/hooks';

export const NARROW_SCREEN_QUERY = '(max-width: 1023.98px)';

/** Whether the screen is narrow now; known on the first render, so a phone never draws the wide table first. */
export function useNarrowScreen(): boolean {
  return useMediaQuery(NARROW_SCREEN_QUERY, undefined, { getInitialValueInEffect: false });
}
