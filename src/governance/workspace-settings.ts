// The settings in force in one workspace (a Slack workspace, a Discord server): the file's global
// sections, with the workspace's own section (under `workspaces`) over them. A field the section
// sets replaces the global one there: its admins are its own, so are its lists, its `dms`, its
// limits; its channel entries go over the global entries of the same id (its `default` over the
// global `default`). Pure; each workspace's merge is kept per settings object (a new object comes
// only with a changed file).
import type { Settings } from "./settings-schema.js";

const merged = new WeakMap<Settings, Map<string, Settings>>();

function merge(settings: Settings, workspace: string): Settings {
  const own = settings.workspaces[workspace];
  if (!own) return settings;
  const { access, limits, channels } = own;
  const admins = access.admins ? { slack: access.admins, discord: access.admins, console: access.admins } : settings.access.admins;
  const adminLimits = limits.admins ?? settings.limits.admins;
  return {
    ...settings,
    access: {
      admins,
      allow: access.allow ?? settings.access.allow,
      block: access.block ?? settings.access.block,
      dms: access.dms ?? settings.access.dms,
      forget: access.forget ?? settings.access.forget,
    },
    limits: {
      user: limits.user ?? settings.limits.user,
      channel: limits.channel ?? settings.limits.channel,
      ...(adminLimits ? { admins: adminLimits } : {}),
    },
    channels: { ...settings.channels, ...channels },
  };
}

/** The settings in `workspace` (the global ones where it is undefined or has no section). */
export function settingsIn(settings: Settings, workspace: string | undefined): Settings {
  if (workspace === undefined || !Object.hasOwn(settings.workspaces, workspace)) return settings;
  const perWorkspace = merged.get(settings) ?? new Map<string, Settings>();
  merged.set(settings, perWorkspace);
  const found = perWorkspace.get(workspace) ?? merge(settings, workspace);
  perWorkspace.set(workspace, found);
  return found;
}
