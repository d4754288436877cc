import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { theme } from '../app/theme';
import { ErrorBoundary } from './ErrorBoundary';

function Broken(): never {
  throw new Error('el trozo de la página no cargó');
}

describe('ErrorBoundary', () => {
  it("shows 'Algo salió mal' and runs the route's own retry (a reload) on 'Reintentar'", async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined); // React reports the caught error
    const reload = vi.fn();
    render(
      <MantineProvider theme={theme} env="test">
        <ErrorBoundary startPath="/" resetKey="/login" onRetry={reload}>
          <Broken />
        </ErrorBoundary>
      </MantineProvider>,
    );
    expect(await screen.findByRole('heading', { name: 'Oops! Algo salió mal' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Volver al inicio' })).toHaveAttribute('href', '/');
    await userEvent.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(reload).toHaveBeenCalledTimes(1);
  });
});
