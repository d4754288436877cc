/** Catches render errors in a part of the page and offers retry (re-render) or going back to the start. */
import { Component, type ErrorInfo, type ReactNode } from 'react';
import { ErrorFallback } from './ErrorFallback';

interface Props {
  children: ReactNode;
  startPath: string;
  /** Changing this (e.g. the route) clears a shown error. */
  resetKey?: string;
  /** What 'Reintentar' does (default: render the part again). */
  onRetry?: () => void;
}

interface State {
  error: Error | null;
  resetKey: string | undefined;
}

export class ErrorBoundary extends Component<Props, State> {
  state: State = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: Error): Partial<State> {
    return { error };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    if (props.resetKey !== state.resetKey) return { error: null, resetKey: props.resetKey };
    return null;
  }

  componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('Error de interfaz', error, info.componentStack);
  }

  render() {
    if (this.state.error) {
      const retry = this.props.onRetry ?? (() => this.setState({ error: null }));
      return <ErrorFallback startPath={this.props.startPath} onRetry={retry} />;
    }
    return this.props.children;
  }
}
