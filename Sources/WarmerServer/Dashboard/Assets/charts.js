// Live line charts on a canvas, redrawn at most once per animation frame.
// Each series has a colour and a dash pattern, named in an HTML legend with
// its current value, so the charts read without colour too.
"use strict";

// A legend swatch: a short line in the series' colour and dash pattern,
// drawn once its colour is known (the figure is in the document).
function swatch(series, figure) {
  const canvas = el("canvas", { class: "swatch", width: 28, height: 10, "aria-hidden": "true" });
  Frame.request(canvas, () => {
    const context = canvas.getContext("2d");
    context.strokeStyle = getComputedStyle(figure).getPropertyValue(series.color).trim() || "#888";
    context.lineWidth = 2.5;
    context.setLineDash(series.dash);
    context.beginPath();
    context.moveTo(1, 5);
    context.lineTo(27, 5);
    context.stroke();
  });
  return canvas;
}

// A chart of series over a sliding time window (seconds).
// series: [{key, label, color: "--css-variable", dash: [on, off…]}];
// format(value) writes the axis and legend values.
class LineChart {
  constructor(figure, series, format) {
    this.figure = figure;
    this.series = series;
    this.format = format;
    this.canvas = figure.querySelector("canvas.plot");
    this.legend = figure.querySelector(".legend");
    this.values = new Map();
    this.legend.replaceChildren(...series.map((item) => {
      const value = el("span", { class: "legend-value", dataset: { series: item.key } }, "–");
      this.values.set(item.key, value);
      return el("li", {}, swatch(item, figure), ` ${item.label} `, value);
    }));
    this.samples = [];
    this.start = 0;
    this.end = 0;
    this.resize = new ResizeObserver(() => this.requestDraw());
    this.resize.observe(this.canvas);
  }

  // samples: [{t, <key>: number…}] oldest first, within [start, end].
  update(samples, start, end) {
    this.samples = samples;
    this.start = start;
    this.end = end;
    const last = samples[samples.length - 1];
    for (const item of this.series) {
      this.values.get(item.key).textContent = last ? this.format(last[item.key] || 0) : "–";
    }
    this.requestDraw();
  }

  requestDraw() {
    Frame.request(this, () => this.draw());
  }

  draw() {
    const canvas = this.canvas;
    if (!canvas.isConnected) return;
    const ratio = window.devicePixelRatio || 1;
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    if (width === 0 || height === 0) return;
    if (canvas.width !== Math.round(width * ratio) || canvas.height !== Math.round(height * ratio)) {
      canvas.width = Math.round(width * ratio);
      canvas.height = Math.round(height * ratio);
    }
    const context = canvas.getContext("2d");
    context.setTransform(ratio, 0, 0, ratio, 0, 0);
    context.clearRect(0, 0, width, height);
    const style = getComputedStyle(this.figure);
    const ink = style.getPropertyValue("--muted").trim() || "#888";
    const left = 56;
    const right = 8;
    const top = 8;
    const bottom = 20;
    const plotWidth = Math.max(1, width - left - right);
    const plotHeight = Math.max(1, height - top - bottom);

    let max = 0;
    for (const sample of this.samples) {
      for (const item of this.series) max = Math.max(max, sample[item.key] || 0);
    }
    const ceiling = niceCeiling(max);
    const span = Math.max(1, this.end - this.start);
    const x = (t) => left + ((t - this.start) / span) * plotWidth;
    const y = (v) => top + plotHeight - (v / ceiling) * plotHeight;

    context.font = "11px system-ui, sans-serif";
    context.fillStyle = ink;
    context.strokeStyle = ink;
    context.globalAlpha = 0.35;
    context.lineWidth = 1;
    context.setLineDash([]);
    context.beginPath();
    for (const fraction of [0, 0.5, 1]) {
      const lineY = Math.round(top + plotHeight * (1 - fraction)) + 0.5;
      context.moveTo(left, lineY);
      context.lineTo(left + plotWidth, lineY);
    }
    context.stroke();
    context.globalAlpha = 1;
    context.textAlign = "right";
    context.textBaseline = "middle";
    // Counts are whole numbers, but half of a ceiling of 5 is not.
    const label = (value) => (this.format === Format.number && !Number.isInteger(value) ? value.toFixed(1) : this.format(value));
    context.fillText(label(ceiling), left - 6, top);
    context.fillText(label(ceiling / 2), left - 6, top + plotHeight / 2);
    context.fillText("0", left - 6, top + plotHeight);
    context.textBaseline = "alphabetic";
    context.textAlign = "left";
    context.fillText(`${Math.round(span / 60)} min ago`, left, height - 4);
    context.textAlign = "right";
    context.fillText("now", left + plotWidth, height - 4);

    context.lineWidth = 2;
    context.lineJoin = "round";
    for (const item of this.series) {
      context.strokeStyle = style.getPropertyValue(item.color).trim() || ink;
      context.setLineDash(item.dash);
      context.beginPath();
      let first = true;
      for (const sample of this.samples) {
        const px = x(sample.t);
        const py = y(sample[item.key] || 0);
        if (first) context.moveTo(px, py);
        else context.lineTo(px, py);
        first = false;
      }
      context.stroke();
    }
    context.setLineDash([]);
  }
}

// The smallest of 1, 2, 5 × 10^n at or above value (at least 1).
function niceCeiling(value) {
  if (!(value > 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) {
    if (step * power >= value) return step * power;
  }
  return 10 * power;
}

window.LineChart = LineChart;
