/** A server as customers know it: its name and location, never its address (docs/webui.md, "Names, not addresses"). */
export function serverLabel(server: { name: string; ubication?: string | null }): string {
  const location = server.ubication?.trim();
  return location ? `${server.name} (${location})` : server.name;
}
