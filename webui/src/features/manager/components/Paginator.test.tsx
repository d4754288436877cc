import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { describe, expect, it, vi } from 'vitest';
import { theme } from '../../../app/theme';
import { Paginator } from './Paginator';

function paginator(page: number, onChange = vi.fn()) {
  render(
    <MantineProvider theme={theme}>
      <Paginator total={60} page={page} pageSize={25} onChange={onChange} />
    </MantineProvider>,
  );
  return onChange;
}

describe('Paginator', () => {
  it('names every button for screen readers (axe button-name: the arrows are icons only)', async () => {
    paginator(2);
    const result = await axe.run(document.body, { runOnly: { type: 'rule', values: ['button-name'] } });
    expect(result.violations.flatMap((v) => v.nodes.map((n) => n.target))).toEqual([]);
    expect(screen.getByRole('button', { name: 'Página anterior' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Página siguiente' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'Página 2' })).toHaveAttribute('aria-current', 'page');
    expect(screen.getByText('60 resultados')).toBeInTheDocument();
  });

  it('moves to the page asked for by its name', async () => {
    const onChange = paginator(1);
    await userEvent.click(screen.getByRole('button', { name: 'Página siguiente' }));
    await userEvent.click(screen.getByRole('button', { name: 'Página 3' }));
    expect(onChange.mock.calls).toEqual([[2], [3]]);
  });
});
