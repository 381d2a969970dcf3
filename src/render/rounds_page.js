// The rounds page's behaviour (rounds_page.html). It reads what the library wrote into
// <script id="wagener-rounds"> (docs/formats.md, "Rounds page") and draws one step at a time on a
// canvas: every round of the upper chain, then of the lower chain, then the hull.
//
// Coordinates arrive as float32 fractions (u, v) of the view, (0, 0) at its bottom left and (1, 1)
// at its top right, so that drawing needs no arithmetic on the input's own, possibly huge, numbers.
// The document's body carries the state for readers and tests: data-step, data-chain, data-round,
// data-drawn (points, hoods, counts or hull), data-drawn-step once the canvas shows that step, and
// data-draw-ms, how long that drawing took.
"use strict";

(function roundsPage() {
  const data = JSON.parse(document.getElementById("wagener-rounds").textContent);
  const $ = (id) => document.getElementById(id);
  const stage = $("stage");
  const canvas = $("plot");
  const ctx = canvas.getContext("2d");
  const slider = $("step");
  const colour = {};
  const style = getComputedStyle(document.documentElement);
  for (const name of ["ink", "muted", "frame", "point", "hood", "before", "bridge", "hull", "left", "right"]) {
    colour[name] = style.getPropertyValue("--" + name).trim();
  }

  // --- the data ------------------------------------------------------------------------------------

  function bytesOf(base64) {
    const text = atob(base64);
    const out = new Uint8Array(text.length);
    for (let i = 0; i < text.length; ++i) out[i] = text.charCodeAt(i);
    return new DataView(out.buffer);
  }
  function floatsOf(base64) {
    const view = bytesOf(base64);
    const out = new Float32Array(view.byteLength / 4);
    for (let i = 0; i < out.length; ++i) out[i] = view.getFloat32(4 * i, true);
    return out;
  }
  function uintsOf(base64) {
    const view = bytesOf(base64);
    const out = new Uint32Array(view.byteLength / 4);
    for (let i = 0; i < out.length; ++i) out[i] = view.getUint32(4 * i, true);
    return out;
  }

  const dots = data.dots !== undefined ? floatsOf(data.dots) : null;
  const hull = data.hull !== undefined ? floatsOf(data.hull) : null;
  let density = null;
  if (data.density) {
    density = new Image();
    density.onload = () => draw();
    density.src = "data:image/png;base64," + data.density.png;
  }

  // A round's arrays, decoded when it is first shown.
  const decoded = new Map();
  function hoodsOf(index) {
    const round = data.rounds[index];
    if (!round || round.drawn !== "hoods") return null;
    if (!decoded.has(index)) {
      const sizes = uintsOf(round.sizes);
      const starts = new Uint32Array(sizes.length + 1);
      for (let k = 0; k < sizes.length; ++k) starts[k + 1] = starts[k] + sizes[k];
      decoded.set(index, {
        xy: floatsOf(round.xy),
        sizes,
        starts,
        bridges: floatsOf(round.bridgeXy),
        merged: round.merged !== undefined ? floatsOf(round.merged) : null,
      });
    }
    return decoded.get(index);
  }

  // Steps: every round as the trace lists it, then the hull.
  const steps = data.rounds.map((round, index) => ({ round, index }));
  steps.push({ round: null, index: -1 });
  const lastRound = {};
  for (const round of data.rounds) lastRound[round.chain] = Math.max(lastRound[round.chain] || 0, round.round);

  // --- the view: which part of the data the plot shows ---------------------------------------------

  const view = { cu: 0.5, cv: 0.5, zoom: 1 };
  const plot = { left: 0, top: 0, w: 1, h: 1 };
  let dpr = 1;
  const kMinZoom = 0.5;
  const kMaxZoom = 1e7;

  function layout() {
    dpr = window.devicePixelRatio || 1;
    const width = Math.max(1, stage.clientWidth);
    const height = Math.max(1, stage.clientHeight);
    if (canvas.width !== Math.round(width * dpr) || canvas.height !== Math.round(height * dpr)) {
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
    }
    const margin = { left: 72, right: 16, top: 16, bottom: 40 };
    const aw = Math.max(10, width - margin.left - margin.right);
    const ah = Math.max(10, height - margin.top - margin.bottom);
    plot.w = Math.min(aw, ah / data.aspect);
    plot.h = plot.w * data.aspect;
    plot.left = margin.left + (aw - plot.w) / 2;
    plot.top = margin.top + (ah - plot.h) / 2;
  }
  const sx = (u) => plot.left + ((u - view.cu) * view.zoom + 0.5) * plot.w;
  const sy = (v) => plot.top + (0.5 - (v - view.cv) * view.zoom) * plot.h;
  const uAt = (x) => view.cu + ((x - plot.left) / plot.w - 0.5) / view.zoom;
  const vAt = (y) => view.cv + (0.5 - (y - plot.top) / plot.h) / view.zoom;
  // The data's own coordinates, in halves as the library computes them (no overflow near 1e308).
  const [x0, y0, x1, y1] = data.view;
  const xOf = (u) => 2 * (x0 / 2 + u * (x1 / 2 - x0 / 2));
  const yOf = (v) => 2 * (y0 / 2 + v * (y1 / 2 - y0 / 2));

  // --- drawing -------------------------------------------------------------------------------------

  function square(u, v, size) {
    ctx.rect(sx(u) - size / 2, sy(v) - size / 2, size, size);
  }

  // Many dots are set as pixels of a layer of their own, redrawn only when the view or their colour
  // changes: 10^5 points then cost a few milliseconds to zoom and nothing to step.
  const layer = document.createElement("canvas");
  let layerKey = "";
  let image = null;
  function drawDotLayer(fill) {
    const key = [canvas.width, canvas.height, view.cu, view.cv, view.zoom, fill].join();
    if (key !== layerKey) {
      layerKey = key;
      if (!image || image.width !== canvas.width || image.height !== canvas.height) {
        layer.width = canvas.width;
        layer.height = canvas.height;
        image = new ImageData(layer.width, layer.height);
      }
      const pixels = new Uint32Array(image.data.buffer);
      pixels.fill(0);
      const rgb = parseInt(fill.slice(1), 16);
      const ink = (0xff000000 | ((rgb & 0xff) << 16) | (rgb & 0xff00) | (rgb >> 16)) >>> 0;  // RGBA bytes
      const size = Math.max(1, Math.round(1.6 * dpr));
      const [w, h] = [layer.width, layer.height];
      for (let i = 0; i < dots.length; i += 2) {
        const x = Math.round(sx(dots[i]) * dpr - size / 2);
        const y = Math.round(sy(dots[i + 1]) * dpr - size / 2);
        if (x < 0 || y < 0 || x + size > w || y + size > h) continue;
        for (let dy = 0; dy < size; ++dy) pixels.fill(ink, (y + dy) * w + x, (y + dy) * w + x + size);
      }
      layer.getContext("2d").putImageData(image, 0, 0);
    }
    ctx.drawImage(layer, 0, 0, canvas.width / dpr, canvas.height / dpr);
  }

  function drawDots(fill) {
    if (dots && dots.length / 2 > 2000) {
      drawDotLayer(fill);
    } else if (dots) {
      ctx.fillStyle = fill;
      ctx.beginPath();
      for (let i = 0; i < dots.length; i += 2) {
        ctx.moveTo(sx(dots[i]) + 2.5, sy(dots[i + 1]));
        ctx.arc(sx(dots[i]), sy(dots[i + 1]), 2.5, 0, 2 * Math.PI);
      }
      ctx.fill();
    } else if (density && density.complete && density.naturalWidth > 0) {
      // Only the visible part of the raster, so that a deep zoom stretches a few bins, not all.
      const u0 = Math.max(0, uAt(plot.left));
      const u1 = Math.min(1, uAt(plot.left + plot.w));
      const v0 = Math.max(0, vAt(plot.top + plot.h));
      const v1 = Math.min(1, vAt(plot.top));
      if (u0 < u1 && v0 < v1) {
        const cw = density.naturalWidth;
        const ch = density.naturalHeight;
        ctx.imageSmoothingEnabled = false;
        ctx.drawImage(density, u0 * cw, (1 - v1) * ch, (u1 - u0) * cw, (v1 - v0) * ch, sx(u0), sy(v1),
                      sx(u1) - sx(u0), sy(v0) - sy(v1));
      }
    }
  }

  // Round r's blocks in pairs: the left block of each merge (P) and the right one (Q).
  function drawMergedBlocks(hoods) {
    if (!hoods.merged || hoods.sizes.length > 50000) return;
    const { xy, starts, merged } = hoods;
    const top = plot.top;
    const height = plot.h;
    const band = (ua, ub, fill) => {
      const a = sx(ua);
      const width = Math.max(1, sx(ub) - a);
      ctx.fillStyle = fill;
      ctx.fillRect(a, top, width, height);
    };
    for (let k = 0; k < hoods.sizes.length; ++k) {
      if (Number.isNaN(merged[2 * k])) continue;  // a block carried over without a partner
      band(xy[2 * starts[k]], merged[2 * k], colour.left);
      band(merged[2 * k + 1], xy[2 * (starts[k + 1] - 1)], colour.right);
    }
  }

  function drawHoods(hoods, stroke, dashed, corners) {
    const { xy, starts, sizes } = hoods;
    ctx.strokeStyle = stroke;
    ctx.lineWidth = dashed ? 1.2 : 1.6;
    ctx.setLineDash(dashed ? [5, 4] : []);
    ctx.beginPath();
    for (let k = 0; k < sizes.length; ++k) {
      const first = starts[k];
      ctx.moveTo(sx(xy[2 * first]), sy(xy[2 * first + 1]));
      for (let i = first + 1; i < starts[k + 1]; ++i) ctx.lineTo(sx(xy[2 * i]), sy(xy[2 * i + 1]));
    }
    ctx.stroke();
    ctx.setLineDash([]);
    if (corners && xy.length / 2 <= 20000) {
      ctx.fillStyle = stroke;
      ctx.beginPath();
      for (let i = 0; i < xy.length / 2; ++i) square(xy[2 * i], xy[2 * i + 1], 3.5);
      ctx.fill();
    }
  }

  function drawBridges(hoods) {
    const b = hoods.bridges;
    ctx.strokeStyle = colour.bridge;
    ctx.fillStyle = colour.bridge;
    ctx.lineWidth = 3.5;
    ctx.lineCap = "round";
    ctx.beginPath();
    for (let i = 0; i < b.length; i += 4) {
      ctx.moveTo(sx(b[i]), sy(b[i + 1]));
      ctx.lineTo(sx(b[i + 2]), sy(b[i + 3]));
    }
    ctx.stroke();
    ctx.lineCap = "butt";
  }

  function drawHull() {
    if (!hull || hull.length === 0) return;
    const n = hull.length / 2;
    ctx.strokeStyle = colour.hull;
    ctx.lineWidth = 2.2;
    ctx.lineJoin = "round";
    ctx.beginPath();
    ctx.moveTo(sx(hull[0]), sy(hull[1]));
    for (let i = 1; i < n; ++i) ctx.lineTo(sx(hull[2 * i]), sy(hull[2 * i + 1]));
    if (data.closed) ctx.closePath();
    ctx.stroke();
    if (n <= 100) {
      ctx.fillStyle = colour.hull;
      ctx.beginPath();
      for (let i = 0; i < n; ++i) square(hull[2 * i], hull[2 * i + 1], 5);
      ctx.fill();
    }
  }

  // Ticks at 1, 2 or 5 times a power of ten, about 90 pixels apart (as the SVG pictures have them).
  function ticks(lo, hi, pixels) {
    const wanted = Math.max(2, pixels / 90);
    const raw = hi / wanted - lo / wanted;
    if (!(raw > 0) || !Number.isFinite(raw)) return { step: 1, values: [] };
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    let step = power;
    for (const f of [1, 2, 5, 10]) {
      step = f * power;
      if (step >= raw) break;
    }
    const values = [];
    for (let k = Math.ceil(lo / step); k * step <= hi && values.length < 64; k += 1) values.push(k * step);
    return { step, values };
  }
  function tickLabel(value, step) {
    if (Math.abs(value) < step * 1e-9) value = 0;
    const magnitude = Math.max(Math.abs(value), step);
    if (magnitude >= 1e-4 && magnitude < 1e7) {
      return value.toFixed(Math.min(20, Math.max(0, Math.floor(-Math.log10(step) + 1 - 1e-9))));
    }
    return String(Number(value.toPrecision(3)));  // "1e+300", "-2.5e-7"
  }

  function drawAxes() {
    ctx.strokeStyle = colour.frame;
    ctx.lineWidth = 1;
    ctx.strokeRect(plot.left, plot.top, plot.w, plot.h);
    ctx.fillStyle = colour.muted;
    ctx.strokeStyle = colour.muted;
    ctx.font = "12px Helvetica, Arial, sans-serif";
    const bottom = plot.top + plot.h;
    const xs = ticks(xOf(uAt(plot.left)), xOf(uAt(plot.left + plot.w)), plot.w);
    ctx.textAlign = "center";
    ctx.beginPath();
    for (const x of xs.values) {
      const px = sx((x / 2 - x0 / 2) / (x1 / 2 - x0 / 2));
      ctx.moveTo(px, bottom);
      ctx.lineTo(px, bottom + 5);
      ctx.fillText(tickLabel(x, xs.step), px, bottom + 18);
    }
    const ys = ticks(yOf(vAt(bottom)), yOf(vAt(plot.top)), plot.h);
    ctx.textAlign = "right";
    for (const y of ys.values) {
      const py = sy((y / 2 - y0 / 2) / (y1 / 2 - y0 / 2));
      ctx.moveTo(plot.left - 5, py);
      ctx.lineTo(plot.left, py);
      ctx.fillText(tickLabel(y, ys.step), plot.left - 8, py + 4);
    }
    ctx.stroke();
  }

  // --- one step ------------------------------------------------------------------------------------

  let step = 0;
  const plural = (n, one, many) => `${n.toLocaleString("en")} ${n === 1 ? one : many}`;

  function describe(s) {
    const r = s.round;
    if (!r) {
      const kind = data.closed ? "convex hull" : "upper hull";
      return `The ${kind}: ${plural(data.hullVertices, "vertex", "vertices")}.`;
    }
    const chain = r.chain === "upper" ? "Upper" : "Lower";
    let text = `${chain} chain, round ${r.round} of ${lastRound[r.chain]}: ` +
               `${plural(r.hoods, "hood", "hoods")} of blocks of ${plural(r.width, "point", "points")}`;
    if (r.round === 0) return text + "; every point is its own hood.";
    text += `, ${plural(r.corners, "corner", "corners")}; ${plural(r.bridges, "bridge", "bridges")} found.`;
    return text;
  }

  function notice(s) {
    const r = s.round;
    const parts = [];
    if (density) {
      parts.push(`${plural(data.points, "point", "points")} are more than ${data.maxDots.toLocaleString("en")}: ` +
                 "they are drawn as a density raster, darker where more points lie.");
    }
    if (r && r.drawn === "counts") {
      parts.push(`This round's ${plural(r.corners, "corner", "corners")} are more than the page draws ` +
                 `(${data.maxCorners.toLocaleString("en")} corners in all, the smallest rounds first); ` +
                 "its blocks are too narrow to see here, and the points stand for its hoods.");
    }
    if (!r && !hull && data.hullVertices > 0) {
      parts.push(`The hull's ${plural(data.hullVertices, "vertex", "vertices")} are more than the page draws.`);
    }
    return parts.join(" ");
  }

  function draw() {
    const start = performance.now();
    layout();
    const s = steps[step];
    const r = s.round;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(0, 0, canvas.width / dpr, canvas.height / dpr);
    ctx.save();
    ctx.beginPath();
    ctx.rect(plot.left, plot.top, plot.w, plot.h);
    ctx.clip();
    const hoods = r ? hoodsOf(s.index) : null;
    drawDots(r && r.round === 0 ? colour.hood : colour.point);
    if (hoods) {
      // Tints over the points (and over the density raster's white): multiplied, they keep them seen.
      ctx.globalCompositeOperation = "multiply";
      drawMergedBlocks(hoods);
      ctx.globalCompositeOperation = "source-over";
      const before = data.rounds[s.index - 1];
      if (before && before.chain === r.chain && before.round === r.round - 1) {
        const previous = hoodsOf(s.index - 1);
        if (previous) drawHoods(previous, colour.before, true, false);
      }
      drawHoods(hoods, colour.hood, false, true);
      drawBridges(hoods);
    }
    if (!r) drawHull();
    ctx.restore();
    drawAxes();
    document.body.dataset.drawnStep = String(step);
    document.body.dataset.drawMs = (performance.now() - start).toFixed(1);
    // Empty until the density raster (a data URI) has been decoded and drawn.
    document.body.dataset.raster = density ? (density.complete && density.naturalWidth > 0 ? "drawn" : "") : "none";
  }

  function show(next) {
    step = Math.max(0, Math.min(steps.length - 1, next));
    const s = steps[step];
    const r = s.round;
    slider.value = String(step);
    $("status").textContent = describe(s);
    $("label").textContent = `step ${step + 1} of ${steps.length}` +
                             (r ? ` · ${r.chain} round ${r.round}` : " · hull");
    const text = notice(s);
    $("notice").textContent = text;
    $("notice").hidden = text === "";
    for (const li of document.querySelectorAll("#phases li")) {
      const phase = Number(li.dataset.phase);
      li.classList.toggle("shown", Boolean(r && r.round > 0 && r.drawn === "hoods" && phase >= 5));
    }
    const body = document.body.dataset;
    body.step = String(step);
    body.chain = r ? r.chain : "";
    body.round = r ? String(r.round) : "";
    body.drawn = r ? r.drawn : "hull";
    draw();
  }

  // --- input ---------------------------------------------------------------------------------------

  let player = null;
  function play(on) {
    if (player) clearInterval(player);
    player = null;
    if (on) {
      if (step === steps.length - 1) show(0);
      player = setInterval(() => {
        if (step >= steps.length - 1) play(false);
        else show(step + 1);
      }, 900);
    }
    $("play").textContent = on ? "\u275A\u275A pause" : "\u25B6\uFE0E play";
  }

  let frame = 0;
  function redraw() {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; draw(); });
  }
  function zoomAt(x, y, factor) {
    const u = uAt(x);
    const v = vAt(y);
    view.zoom = Math.max(kMinZoom, Math.min(kMaxZoom, view.zoom * factor));
    // Keep the data point under (x, y) where it is.
    view.cu = u - ((x - plot.left) / plot.w - 0.5) / view.zoom;
    view.cv = v - (0.5 - (y - plot.top) / plot.h) / view.zoom;
    redraw();
  }
  function resetView() {
    view.cu = 0.5;
    view.cv = 0.5;
    view.zoom = 1;
    redraw();
  }

  slider.max = String(steps.length - 1);
  slider.addEventListener("input", () => { play(false); show(Number(slider.value)); });
  $("first").addEventListener("click", () => { play(false); show(0); });
  $("back").addEventListener("click", () => { play(false); show(step - 1); });
  $("on").addEventListener("click", () => { play(false); show(step + 1); });
  $("last").addEventListener("click", () => { play(false); show(steps.length - 1); });
  $("play").addEventListener("click", () => play(!player));
  $("reset").addEventListener("click", resetView);

  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const onButton = event.target instanceof HTMLButtonElement;
    if (onButton && (event.key === " " || event.key === "Enter")) return;  // the button's own click
    const moves = {
      ArrowRight: () => show(step + 1), ArrowDown: () => show(step + 1), PageDown: () => show(step + 1),
      ArrowLeft: () => show(step - 1), ArrowUp: () => show(step - 1), PageUp: () => show(step - 1),
      Home: () => show(0), End: () => show(steps.length - 1),
    };
    const center = () => [plot.left + plot.w / 2, plot.top + plot.h / 2];
    const actions = {
      " ": () => play(!player),
      "0": resetView,
      "+": () => zoomAt(...center(), 1.5),
      "=": () => zoomAt(...center(), 1.5),
      "-": () => zoomAt(...center(), 1 / 1.5),
    };
    if (moves[event.key]) {
      play(false);
      moves[event.key]();
    } else if (actions[event.key]) {
      actions[event.key]();
    } else {
      return;
    }
    event.preventDefault();  // the slider's own arrow keys would step twice
  });

  stage.addEventListener("wheel", (event) => {
    event.preventDefault();
    const rect = canvas.getBoundingClientRect();
    const lines = event.deltaMode === 1 ? 16 : event.deltaMode === 2 ? 400 : 1;
    zoomAt(event.clientX - rect.left, event.clientY - rect.top, Math.exp(-event.deltaY * lines * 0.0015));
  }, { passive: false });

  let drag = null;
  stage.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    drag = { x: event.clientX, y: event.clientY };
    stage.setPointerCapture(event.pointerId);
    stage.classList.add("dragging");
  });
  stage.addEventListener("pointermove", (event) => {
    if (!drag) return;
    view.cu -= (event.clientX - drag.x) / (plot.w * view.zoom);
    view.cv += (event.clientY - drag.y) / (plot.h * view.zoom);
    drag = { x: event.clientX, y: event.clientY };
    redraw();
  });
  const endDrag = () => { drag = null; stage.classList.remove("dragging"); };
  stage.addEventListener("pointerup", endDrag);
  stage.addEventListener("pointercancel", endDrag);
  stage.addEventListener("dblclick", resetView);
  new ResizeObserver(redraw).observe(stage);

  document.title = data.title;
  $("title").textContent = data.title;
  $("caption").textContent = data.caption;
  show(0);
  // The keys work at once in a page of its own; a page in a frame (a notebook's) leaves the focus
  // where the reader has it.
  if (window.top === window) stage.focus();
})();
