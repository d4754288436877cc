/** Vitest setup: jest-dom matchers and the browser APIs Mantine needs that jsdom lacks. */
import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';

// `make test` runs this layer beside the API and browser layers on two cores; a mocked request can take longer than
// Testing Library's default 1 s wait to render there, and a Mantine render alone over 5 s (vite.config.ts). A wait
// ends as soon as its element appears, so passing tests do not slow down.
configure({ asyncUtilTimeout: 15_000 });

afterEach(() => {
  cleanup();
  window.localStorage.clear();
});

Object.defineProperty(window, 'matchMedia', {
  writable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => undefined,
    removeListener: () => undefined,
    addEventListener: () => undefined,
    removeEventListener: () => undefined,
    dispatchEvent: () => false,
  }),
});

class ResizeObserverShim {
  observe(): void {}
  unobserve(): void {}
  disconnect(): void {}
}
window.ResizeObserver = ResizeObserverShim as unknown as typeof ResizeObserver;

window.scrollTo = () => undefined;
Element.prototype.scrollIntoView = () => undefined;

const { getComputedStyle } = window;
window.getComputedStyle = (element: Element) => getComputedStyle(element);
