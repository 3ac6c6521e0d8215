// Moving between screens without reloading: `navigate(path)` changes the address (history API) and
// tells the app; Back and Forward follow. A screen with unsaved work sets a leave guard, asked before
// any move (and by the browser before the tab closes or reloads).
type Listener = (path: string) => void;

const listeners = new Set<Listener>();
let leaveGuard: (() => boolean) | null = null;

/** `guard` answers whether there is unsaved work; null removes it. */
export function setLeaveGuard(guard: (() => boolean) | null): void {
  leaveGuard = guard;
}

/** True when the user may leave: nothing unsaved, or they confirmed. */
export function mayLeave(message: string): boolean {
  return !leaveGuard?.() || confirm(message);
}

export function onNavigate(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function navigate(path: string, { replace = false } = {}): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  for (const listener of listeners) listener(path);
}

/** A click on an in-app link: handled here unless the user asked for a new tab or window. */
export function follow(event: MouseEvent, path: string, leaveMessage: string): void {
  if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  if (mayLeave(leaveMessage)) navigate(path);
}

addEventListener('beforeunload', (event) => {
  if (leaveGuard?.()) event.preventDefault();
});
addEventListener('popstate', () => {
  for (const listener of listeners) listener(location.pathname);
});
