// Inline SVG charts (no script, no outside asset): bars of a series, and a run's timeline with
// one bar per step (its model call darker than its tools) and its guard trips marked. Sizes are
// SVG attributes, so the Content-Security-Policy needs no inline style.
import { escapeHtml, raw, type Raw } from "./html.js";

export interface Bar {
  readonly label: string;
  readonly value: number;
  /** Hover text. */
  readonly title?: string;
}

const WIDTH = 720;
/** Room one label needs below the bars ("12-06" at the chart's font): closer labels would overlap. */
const LABEL_PX = 44;

/**
 * Vertical bars, one per item, scaled to the largest; a label under every bar that has room for
 * one (every second, third… bar otherwise, and the last). `empty`: said instead of a chart of zeros.
 */
export function barChart(bars: readonly Bar[], caption: string, height = 140, empty = "Nothing in these days."): Raw {
  if (bars.length === 0) return raw("");
  if (bars.every((bar) => bar.value <= 0))
    return raw(`<figure><p class="empty">${escapeHtml(empty)}</p><figcaption>${escapeHtml(caption)}</figcaption></figure>`);
  const max = Math.max(1, ...bars.map((bar) => bar.value));
  const slot = WIDTH / bars.length;
  const width = Math.max(1, Math.min(48, slot * 0.8));
  const every = Math.ceil(LABEL_PX / slot);
  const labelled = (index: number) => index % every === 0 && (index === bars.length - 1 || bars.length - 1 - index >= every);
  const shapes = bars.map((bar, index) => {
    const barHeight = Math.round((bar.value / max) * (height - 20));
    const x = Math.round(index * slot + (slot - width) / 2);
    const last = index === bars.length - 1;
    return `<g><title>${escapeHtml(bar.title ?? `${bar.label}: ${bar.value}`)}</title><rect class="bar" x="${x}" y="${height - 16 - barHeight}" width="${Math.round(width)}" height="${barHeight}"></rect>${
      labelled(index) || last
        ? `<text x="${x + Math.round(width / 2)}" y="${height - 2}" text-anchor="middle">${escapeHtml(bar.label)}</text>`
        : ""
    }</g>`;
  });
  return raw(
    `<figure><svg class="chart" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="${escapeHtml(caption)}">${shapes.join("")}</svg><figcaption>${escapeHtml(caption)}</figcaption></figure>`,
  );
}

export interface TimelineStep {
  readonly index: number;
  /** Since the run's start. */
  readonly offsetMs: number;
  readonly durationMs: number;
  readonly modelMs?: number;
  readonly tripped?: string;
}

const ROW = 22;

/** One row per step: where it sat in the run's time, its model call part darker; a trip marked in red. */
export function timeline(steps: readonly TimelineStep[], totalMs: number): Raw {
  if (steps.length === 0) return raw("");
  const span = Math.max(1, totalMs, ...steps.map((step) => step.offsetMs + step.durationMs));
  const scale = (ms: number) => Math.max(1, Math.round((ms / span) * (WIDTH - 120)));
  const height = steps.length * ROW + 8;
  const rows = steps.map((step, row) => {
    const y = row * ROW + 4;
    const x = 60 + Math.round((step.offsetMs / span) * (WIDTH - 120));
    const model = step.modelMs === undefined ? 0 : Math.min(step.durationMs, step.modelMs);
    const trip = step.tripped
      ? `<g class="trip"><title>${escapeHtml(`guard tripped: ${step.tripped}`)}</title><rect class="trip" x="${x + scale(step.durationMs) + 2}" y="${y}" width="8" height="16"></rect></g>`
      : "";
    return `<g><title>${escapeHtml(`step ${step.index}: ${Math.round(step.durationMs)} ms${step.modelMs === undefined ? "" : `, model ${Math.round(step.modelMs)} ms`}`)}</title><text x="0" y="${y + 12}">step ${step.index}</text><rect class="tools" x="${x}" y="${y}" width="${scale(step.durationMs)}" height="16"></rect><rect class="model" x="${x}" y="${y}" width="${model > 0 ? scale(model) : 0}" height="16"></rect></g>${trip}`;
  });
  return raw(
    `<figure><svg class="chart timeline" viewBox="0 0 ${WIDTH} ${height}" width="${WIDTH}" height="${height}" role="img" aria-label="timeline of the steps">${rows.join("")}</svg><figcaption>Timeline: each step's model call (dark) and tools (light); a red mark is a guard trip.</figcaption></figure>`,
  );
}
