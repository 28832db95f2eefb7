// Nearby's map page (docs/map.md): the region boundaries from /tiles (layer `regions`), the clusters of
// the view from /v1/clusters, chips counting each category in the view, and a carousel of the places
// nearest the map centre from /v1/places whose selection reaches the markers as NearbyCarousel
// defines it: debounce, then distinct-until-changed on (list generation, index).
'use strict';
(function () {
  const DEBOUNCE_MS = 300;
  const CARDS = 20;
  const DEFAULT_VIEW = { lat: 37.5665, lon: 126.978, zoom: 12 };
  const CATEGORIES = [
    [12, '관광지'], [14, '문화시설'], [15, '축제'], [25, '여행코스'],
    [28, '레포츠'], [32, '숙박'], [38, '쇼핑'], [39, '음식점'],
  ];
  const CATEGORY_NAMES = new Map(CATEGORIES);

  const $ = (id) => document.getElementById(id);
  const state = {
    categories: new Set(),
    keyword: '',
    bookmarked: false,
    token: sessionStorage.getItem('nearby.token') || '',
    selectedId: null,
  };

  // What tests and people in the console can read: the map, every request counted, a log of the
  // carousel's index stream and selections (performance.now() times), the first clusters' time.
  const nearby = (window.nearby = {
    debounceMs: DEBOUNCE_MS,
    map: null,
    requests: { clusters: 0, places: 0, counts: 0, tiles: 0 },
    inFlight: 0,
    log: [],
    firstClustersMs: null,
    lastClusters: null,
    lastList: null,
  });
  function note(type, detail) {
    nearby.log.push(Object.assign({ t: performance.now(), type: type }, detail || {}));
    if (nearby.log.length > 1000) nearby.log.splice(0, 500);
  }

  function status(text, isError) {
    const el = $('status');
    el.textContent = text || '';
    el.className = isError ? 'error' : '';
  }

  // --- requests -----------------------------------------------------------------------------------

  function filterParams() {
    const p = new URLSearchParams();
    if (state.categories.size) p.set('category', [...state.categories].sort((a, b) => a - b).join(','));
    if (state.keyword) p.set('keyword', state.keyword);
    if (state.bookmarked) p.set('bookmarked', 'true');
    return p;
  }

  async function getJSON(path, params) {
    const headers = {};
    if (state.token) headers.Authorization = 'Bearer ' + state.token;
    nearby.inFlight++;
    try {
      const response = await fetch(path + '?' + params.toString(), { headers: headers });
      const body = await response.json().catch(() => null);
      if (!response.ok) {
        const reason = body && body.error ? body.error : response.statusText;
        const error = new Error(response.status === 401 ? '토큰이 올바르지 않습니다 (401)' : reason);
        error.status = response.status;
        throw error;
      }
      return body;
    } finally {
      nearby.inFlight--;
    }
  }

  function failed(error) {
    status(String(error.message || error), true);
  }

  // --- the view: Leaflet's map, or a fixed view when Leaflet is missing ----------------------------

  function initialView() {
    const m = /^#(\d+)\/(-?[\d.]+)\/(-?[\d.]+)$/.exec(location.hash);
    if (!m) return DEFAULT_VIEW;
    return { zoom: Number(m[1]), lat: Number(m[2]), lon: Number(m[3]) };
  }

  const view = initialView();
  const fixed = {
    center: () => ({ lat: view.lat, lng: view.lon }),
    zoom: () => view.zoom,
    bbox: () => [view.lon - 0.05, view.lat - 0.04, view.lon + 0.05, view.lat + 0.04],
  };
  let map = null;

  function center() {
    return map ? map.getCenter() : fixed.center();
  }
  function zoom() {
    return map ? map.getZoom() : fixed.zoom();
  }
  /** The view's box as [west, south, east, north], within the world. */
  function bounds() {
    if (!map) return fixed.bbox();
    const b = map.getBounds();
    const clamp = (v, limit) => Math.max(-limit, Math.min(limit, v));
    let west = b.getWest();
    let east = b.getEast();
    if (east - west >= 360) {
      west = -180;
      east = 180;
    }
    return [clamp(west, 180), clamp(b.getSouth(), 90), clamp(east, 180), clamp(b.getNorth(), 90)];
  }
  function bboxText(box) {
    return box.map((v) => v.toFixed(6)).join(',');
  }
  nearby.bbox = () => bboxText(bounds());

  // --- the region boundaries: the `regions` layer of /tiles/{z}/{x}/{y}.mvt on canvases --------------

  // A Mapbox Vector Tile is a protobuf message; the page reads the few fields it draws.
  function reader(bytes) {
    let pos = 0;
    const r = {
      more: () => pos < bytes.length,
      varint() {
        let value = 0;
        let scale = 1;
        for (;;) {
          const b = bytes[pos++];
          value += (b & 0x7f) * scale;
          if (b < 0x80) return value;
          scale *= 128;
        }
      },
      bytes() {
        const n = r.varint();
        const out = bytes.subarray(pos, pos + n);
        pos += n;
        return out;
      },
      skip(wire) {
        if (wire === 0) r.varint();
        else if (wire === 1) pos += 8;
        else if (wire === 2) pos += r.varint();
        else if (wire === 5) pos += 4;
        else throw new Error('bad wire type ' + wire);
      },
    };
    return r;
  }
  const utf8 = new TextDecoder();
  function packed(bytes) {
    const r = reader(bytes);
    const out = [];
    while (r.more()) out.push(r.varint());
    return out;
  }

  /** The layer named `name` of a tile: {extent, features: [{type, geometry, tags}], keys, values}. */
  function decodeLayer(bytes, name) {
    const tile = reader(bytes);
    while (tile.more()) {
      const key = tile.varint();
      if (key >> 3 !== 3 || (key & 7) !== 2) {
        tile.skip(key & 7);
        continue;
      }
      const r = reader(tile.bytes());
      const layer = { name: '', extent: 4096, features: [], keys: [], values: [] };
      while (r.more()) {
        const k = r.varint();
        const field = k >> 3;
        if (field === 1) layer.name = utf8.decode(r.bytes());
        else if (field === 2) layer.features.push(r.bytes());
        else if (field === 3) layer.keys.push(utf8.decode(r.bytes()));
        else if (field === 4) {
          const v = reader(r.bytes());
          let value = null;
          while (v.more()) {
            const vk = v.varint();
            if (vk >> 3 === 1) value = utf8.decode(v.bytes());
            else v.skip(vk & 7);
          }
          layer.values.push(value);
        } else if (field === 5) layer.extent = r.varint();
        else r.skip(k & 7);
      }
      if (layer.name !== name) continue;
      layer.features = layer.features.map((bytes) => {
        const f = reader(bytes);
        const feature = { type: 0, geometry: [], tags: [] };
        while (f.more()) {
          const k = f.varint();
          const field = k >> 3;
          if (field === 2) feature.tags = packed(f.bytes());
          else if (field === 3) feature.type = f.varint();
          else if (field === 4) feature.geometry = packed(f.bytes());
          else f.skip(k & 7);
        }
        return feature;
      });
      return layer;
    }
    return null;
  }

  function property(layer, feature, name) {
    for (let i = 0; i + 1 < feature.tags.length; i += 2) {
      if (layer.keys[feature.tags[i]] === name) return layer.values[feature.tags[i + 1]];
    }
    return null;
  }

  /** Traces a feature's geometry commands (MoveTo, LineTo, ClosePath; zigzag deltas) on `ctx`. */
  function trace(ctx, geometry, scale) {
    let x = 0;
    let y = 0;
    let i = 0;
    const zigzag = (n) => (n >>> 1) ^ -(n & 1);
    while (i < geometry.length) {
      const command = geometry[i] & 7;
      const count = geometry[i] >>> 3;
      i++;
      if (command === 7) {
        ctx.closePath();
        continue;
      }
      for (let c = 0; c < count; c++) {
        x += zigzag(geometry[i++]);
        y += zigzag(geometry[i++]);
        if (command === 1) ctx.moveTo(x * scale, y * scale);
        else ctx.lineTo(x * scale, y * scale);
      }
    }
  }

  function drawRegions(canvas, layer) {
    const ctx = canvas.getContext('2d');
    if (!layer) return;
    const scale = canvas.width / layer.extent;
    for (const feature of layer.features) {
      if (feature.type !== 3) continue;
      ctx.beginPath();
      trace(ctx, feature.geometry, scale);
      ctx.fillStyle = '#f3efe6';
      ctx.fill('evenodd');
      const sido = property(layer, feature, 'level') === 'sido';
      ctx.strokeStyle = sido ? '#8c7f6e' : '#b9ad9c';
      ctx.lineWidth = sido ? 1.4 : 0.8;
      ctx.stroke();
    }
  }

  function regionsLayer() {
    const Layer = L.GridLayer.extend({
      createTile(coords, done) {
        const size = this.getTileSize();
        const canvas = document.createElement('canvas');
        canvas.width = size.x;
        canvas.height = size.y;
        nearby.requests.tiles++;
        fetch(`/tiles/${coords.z}/${coords.x}/${coords.y}.mvt`)
          .then((r) => (r.ok ? r.arrayBuffer() : Promise.reject(new Error('tile ' + r.status))))
          .then((buffer) => {
            drawRegions(canvas, decodeLayer(new Uint8Array(buffer), 'regions'));
            done(null, canvas);
          })
          .catch((error) => done(error, canvas));
        return canvas;
      },
    });
    return new Layer({ maxNativeZoom: 14, attribution: '행정구역 경계: Nearby (data/kr_regions.bin)' });
  }

  // --- clusters and markers -------------------------------------------------------------------------

  let markers = null;
  let selectionRing = null;
  const placeMarkers = new Map();
  let clusterSeq = 0;

  async function refreshClusters() {
    if (!map) return;
    const seq = ++clusterSeq;
    const z = zoom();
    const bbox = bboxText(bounds());
    const p = filterParams();
    p.set('zoom', String(z));
    p.set('bbox', bbox);
    nearby.requests.clusters++;
    let collection;
    try {
      collection = await getJSON('/v1/clusters', p);
    } catch (error) {
      if (seq === clusterSeq) failed(error);
      return;
    }
    if (seq !== clusterSeq) return;
    drawClusters(collection);
    nearby.lastClusters = { zoom: z, bbox: bbox, query: p.toString(), count: collection.features.length };
    if (nearby.firstClustersMs === null) {
      nearby.firstClustersMs = performance.now();
      note('first-clusters', { ms: nearby.firstClustersMs });
    }
  }

  function drawClusters(collection) {
    markers.clearLayers();
    placeMarkers.clear();
    for (const feature of collection.features) {
      const [lon, lat] = feature.geometry.coordinates;
      const p = feature.properties || {};
      if (p.cluster) {
        const size = Math.round(Math.min(44, 20 + 6 * Math.log10(p.point_count)));
        const marker = L.marker([lat, lon], {
          icon: L.divIcon({ className: 'nearby-marker cluster', html: '', iconSize: [size, size] }),
          keyboard: false,
        });
        marker.on('click', () => {
          const target = Math.min(p.expansion_zoom, map.getMaxZoom());
          note('cluster-click', { id: p.cluster_id, expansionZoom: p.expansion_zoom });
          map.setView([lat, lon], target);
        });
        marker.on('add', () => {
          const el = marker.getElement();
          el.dataset.kind = 'cluster';
          el.dataset.id = String(p.cluster_id);
          el.dataset.expansionZoom = String(p.expansion_zoom);
          el.textContent = String(p.point_count_abbreviated);
          el.title = `${p.point_count}곳`;
        });
        markers.addLayer(marker);
      } else {
        const id = String(p.id !== undefined ? p.id : feature.id);
        const marker = L.marker([lat, lon], {
          icon: L.divIcon({ className: 'nearby-marker place', html: '', iconSize: [12, 12] }),
          keyboard: false,
        });
        marker.on('add', () => {
          const el = marker.getElement();
          el.dataset.kind = 'place';
          el.dataset.id = id;
          if (id === state.selectedId) el.classList.add('selected');
        });
        marker.bindTooltip(p.title || id, { direction: 'top', offset: [0, -6] });
        marker.on('click', () => tapMarker(id));
        if (id === state.selectedId) marker.setZIndexOffset(1000);
        placeMarkers.set(id, marker);
        markers.addLayer(marker);
      }
    }
  }

  // --- the carousel: index events → debounce → lookup → distinct → the marker ------------------------

  const carousel = {
    list: [],
    generation: 0,
    pending: null,
    timer: null,
    lastKey: null,
    /** A fully visible card's index (a swipe, a tap's scroll, a new list resting on card 0). */
    input(index, origin) {
      note('index', { index: index, origin: origin, generation: this.generation });
      this.pending = index;
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.due(), DEBOUNCE_MS);
    },
    due() {
      const index = this.pending;
      this.pending = null;
      this.timer = null;
      if (index === null) return;
      if (index < 0 || index >= this.list.length) {
        note('dropped', { index: index, reason: `the list has ${this.list.length} cards` });
        return;
      }
      const key = this.generation + ':' + index;
      if (key === this.lastKey) return;
      this.lastKey = key;
      select(index);
    },
    replace(places) {
      this.generation++;
      this.list = places;
      renderCards(places);
      if (places.length) this.input(0, 'list');
    },
  };
  nearby.carousel = carousel;

  function select(index) {
    const place = carousel.list[index];
    state.selectedId = place.id;
    note('selected', { index: index, id: place.id, generation: carousel.generation });
    for (const el of document.querySelectorAll('.card.selected')) el.classList.remove('selected');
    const card = $('cards').children[index];
    if (card) card.classList.add('selected');
    for (const el of document.querySelectorAll('.nearby-marker.place.selected')) el.classList.remove('selected');
    for (const marker of placeMarkers.values()) marker.setZIndexOffset(0);
    if (!map) return;
    const marker = placeMarkers.get(place.id);
    if (marker) {
      marker.setZIndexOffset(1000);
      const el = marker.getElement();
      if (el) el.classList.add('selected');
    }
    if (selectionRing) selectionRing.remove();
    selectionRing = L.marker([place.lat, place.lon], {
      icon: L.divIcon({ className: 'nearby-selection', iconSize: [24, 24] }),
      interactive: false,
      keyboard: false,
      zIndexOffset: 900,
    }).addTo(map);
    // The camera follows the selection only when the place is out of view.
    if (!map.getBounds().contains([place.lat, place.lon])) map.panTo([place.lat, place.lon]);
  }

  function formatDistance(metres) {
    if (metres === undefined || metres === null) return '';
    return metres < 1000 ? `${Math.round(metres)} m` : `${(metres / 1000).toFixed(1)} km`;
  }

  function renderCards(places) {
    const box = $('cards');
    box.textContent = '';
    if (!places.length) {
      const empty = document.createElement('div');
      empty.className = 'cards-empty';
      empty.textContent = '이 근처에 맞는 곳이 없습니다';
      box.appendChild(empty);
      return;
    }
    places.forEach((place, index) => {
      const card = document.createElement('article');
      card.className = 'card';
      card.dataset.id = place.id;
      card.dataset.index = String(index);
      const title = document.createElement('div');
      title.className = 'title';
      title.textContent = place.title || place.id;
      const meta = document.createElement('div');
      meta.className = 'meta';
      meta.textContent = [CATEGORY_NAMES.get(place.category), formatDistance(place.distance), place.addr]
        .filter(Boolean)
        .join(' · ');
      card.append(title, meta);
      card.tabIndex = 0;
      card.addEventListener('click', () => tapCard(index));
      card.addEventListener('keydown', (event) => {
        if (event.key === 'Enter' || event.key === ' ') {
          event.preventDefault();
          tapCard(index);
        }
      });
      box.appendChild(card);
    });
    box.scrollLeft = 0;
  }

  /** A tap on a card: it scrolls to the centre; the scroll reports the cards it passes. */
  function tapCard(index) {
    carousel.input(index, 'tap');
    scrollToCard(index);
  }

  /** A tap on a marker: its card scrolls into view, when the list has it. */
  function tapMarker(id) {
    const index = carousel.list.findIndex((p) => p.id === id);
    note('marker-tap', { id: id, index: index });
    if (index >= 0) scrollToCard(index);
  }

  function scrollToCard(index) {
    const card = $('cards').children[index];
    if (card) card.scrollIntoView({ behavior: 'smooth', inline: 'center', block: 'nearest' });
  }

  /** The fully visible card nearest the carousel's centre (ties: the lower index), or -1. */
  function visibleCard() {
    const box = $('cards');
    const outer = box.getBoundingClientRect();
    const middle = (outer.left + outer.right) / 2;
    let best = -1;
    let bestDistance = Infinity;
    const cards = box.querySelectorAll('.card');
    for (let i = 0; i < cards.length; i++) {
      const r = cards[i].getBoundingClientRect();
      if (r.left < outer.left - 0.5 || r.right > outer.right + 0.5) continue;
      const d = Math.abs((r.left + r.right) / 2 - middle);
      if (d < bestDistance) {
        best = i;
        bestDistance = d;
      }
    }
    return best;
  }

  let scrollFrame = 0;
  function onCardsScroll() {
    if (scrollFrame) return;
    scrollFrame = requestAnimationFrame(() => {
      scrollFrame = 0;
      const index = visibleCard();
      if (index >= 0) carousel.input(index, 'scroll');
    });
  }

  // --- the list of places nearest the centre, and "search this area" -------------------------------

  let listSeq = 0;
  async function refreshList() {
    const seq = ++listSeq;
    const c = center();
    const p = filterParams();
    p.set('lat', c.lat.toFixed(6));
    p.set('lon', c.lng.toFixed(6));
    p.set('knn', String(CARDS));
    p.set('limit', String(CARDS));
    p.set('total', 'none');
    p.set('fields', 'id,title,category,lat,lon,addr,distance');
    nearby.requests.places++;
    $('search-area').hidden = true;
    let body;
    try {
      body = await getJSON('/v1/places', p);
    } catch (error) {
      if (seq === listSeq) failed(error);
      return;
    }
    if (seq !== listSeq) return;
    nearby.lastList = { lat: c.lat, lon: c.lng, query: p.toString(), count: body.places.length };
    note('list', { lat: c.lat, lon: c.lng, count: body.places.length });
    carousel.replace(body.places);
  }

  // --- category chips with counts for the view --------------------------------------------------------

  function renderChips() {
    const box = $('chips');
    for (const [id, name] of CATEGORIES) {
      const chip = document.createElement('button');
      chip.type = 'button';
      chip.className = 'chip';
      chip.dataset.category = String(id);
      const label = document.createElement('span');
      label.textContent = name;
      const count = document.createElement('span');
      count.className = 'count';
      chip.append(label, count);
      chip.addEventListener('click', () => {
        if (state.categories.has(id)) state.categories.delete(id);
        else state.categories.add(id);
        chip.classList.toggle('on', state.categories.has(id));
        filtersChanged();
      });
      box.appendChild(chip);
    }
  }

  let countSeq = 0;
  async function refreshCounts() {
    const seq = ++countSeq;
    const bbox = bboxText(bounds());
    nearby.requests.counts++;
    let totals;
    try {
      totals = await Promise.all(
        CATEGORIES.map(([id]) => {
          const p = filterParams();
          p.set('category', String(id));
          p.set('bbox', bbox);
          p.set('limit', '1');
          p.set('fields', 'id');
          return getJSON('/v1/places', p).then((body) => body.total);
        })
      );
    } catch (error) {
      if (seq === countSeq) failed(error);
      return;
    }
    if (seq !== countSeq) return;
    const chips = $('chips').children;
    totals.forEach((total, i) => {
      chips[i].querySelector('.count').textContent = total === null ? '' : total.toLocaleString('ko-KR');
    });
  }

  // --- wiring ------------------------------------------------------------------------------------------

  function filtersChanged() {
    status('');
    refreshClusters();
    refreshCounts();
    refreshList();
  }

  function start() {
    renderChips();
    $('search').addEventListener('submit', (event) => {
      event.preventDefault();
      state.keyword = $('keyword').value.trim();
      filtersChanged();
    });
    const token = $('token');
    const bookmarked = $('bookmarked');
    token.value = state.token;
    bookmarked.disabled = !state.token;
    token.addEventListener('change', () => {
      state.token = token.value.trim();
      if (state.token) sessionStorage.setItem('nearby.token', state.token);
      else sessionStorage.removeItem('nearby.token');
      bookmarked.disabled = !state.token;
      if (!state.token && bookmarked.checked) {
        bookmarked.checked = false;
        state.bookmarked = false;
      }
      filtersChanged();
    });
    token.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') token.blur();
    });
    bookmarked.addEventListener('change', () => {
      state.bookmarked = bookmarked.checked;
      filtersChanged();
    });
    $('cards').addEventListener('scroll', onCardsScroll, { passive: true });
    $('search-area').addEventListener('click', () => {
      note('search-area', {});
      refreshList();
    });

    if (typeof L === 'undefined') {
      status('Leaflet이 서버에 없어 지도를 그릴 수 없습니다: apt-get install libjs-leaflet (목록은 기본 위치 기준)', true);
      $('map').classList.add('missing');
      refreshCounts();
      refreshList();
      return;
    }
    map = L.map('map', { zoomControl: true, minZoom: 2, maxZoom: 18, worldCopyJump: false });
    nearby.map = map;
    map.setView([view.lat, view.lon], view.zoom);
    markers = L.layerGroup().addTo(map);
    // The clusters first, alone: the boundaries' tiles, the counts and the list follow them.
    refreshClusters().then(() => {
      regionsLayer().addTo(map);
      refreshCounts();
      refreshList();
    });
    map.on('moveend', () => {
      const c = map.getCenter();
      history.replaceState(null, '', `#${map.getZoom()}/${c.lat.toFixed(5)}/${c.lng.toFixed(5)}`);
      refreshClusters();
      refreshCounts();
      $('search-area').hidden = false;
    });
  }

  start();
})();
