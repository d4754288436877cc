import { Button } from '@mantine/core';
import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NARROW_SCREEN_QUERY } from '../../../lib/screen';
import { renderWithProviders } from '../../../testing/render';
import { NameWithActions } from './NameWithActions';
import { RowTable } from './RowTable';

interface Plan {
  id: string;
  name: string;
  price: string;
  visible: boolean;
}

const PLANS: Plan[] = [{ id: 'p1', name: 'Mensual', price: '5.00', visible: true }];

function PlansTable() {
  return (
    <RowTable
      rows={PLANS}
      rowKey={(plan) => plan.id}
      name={{
        header: 'Plan',
        cell: (plan) => <NameWithActions actions={<Button size="xs">Editar</Button>}>{plan.name}</NameWithActions>,
      }}
      columns={[
        { header: 'Precio', cell: (plan) => `$${plan.price} USD`, detail: (plan) => `$${plan.price} USD` },
        { header: 'Estado', cell: (plan) => (plan.visible ? 'Visible' : 'Oculto') },
      ]}
    />
  );
}

/** The screen as a phone's (below 1024 px) or a laptop's: jsdom answers every media query with "no" otherwise. */
function screenIsNarrow(narrow: boolean) {
  vi.spyOn(window, 'matchMedia').mockImplementation(
    (query: string) =>
      ({
        matches: narrow && query === NARROW_SCREEN_QUERY,
        media: query,
        onchange: null,
        addListener: () => undefined,
        removeListener: () => undefined,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
        dispatchEvent: () => false,
      }) as MediaQueryList,
  );
}

afterEach(() => vi.restoreAllMocks());

describe('RowTable', () => {
  it('shows every column from 1024 px', () => {
    screenIsNarrow(false);
    renderWithProviders(<PlansTable />);
    expect(screen.getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['Plan', 'Precio', 'Estado']);
    expect(screen.getByRole('cell', { name: '$5.00 USD' })).toBeInTheDocument();
  });

  it('on a phone puts the secondary columns under the name, beside its actions, and keeps the state', () => {
    screenIsNarrow(true);
    renderWithProviders(<PlansTable />);
    expect(screen.getAllByRole('columnheader').map((th) => th.textContent)).toEqual(['Plan', 'Estado']);
    const name = screen.getByText('Mensual').closest('td') as HTMLElement;
    expect(within(name).getByRole('button', { name: 'Editar' })).toBeInTheDocument();
    expect(within(name).getByTestId('row-detail')).toHaveTextContent('$5.00 USD');
    expect(screen.getByRole('cell', { name: 'Visible' })).toBeInTheDocument();
  });
});
