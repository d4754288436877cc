/** Vitest setup: jest-dom matchers and the browser APIs Mantine needs that jsdom lacks. */
import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';

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
