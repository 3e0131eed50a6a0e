/*
 * map.js: the mcchunk web map (Leaflet). Tiles are 512x512 PNGs at
 * tiles/DIM/Z/TX/TZ.png: zoom 0 shows one block per pixel, zoom Z 2^Z
 * blocks per pixel, and tile (TX, TZ) of zoom Z covers blocks
 * [512*2^Z*TX, 512*2^Z*(TX+1)) in x and the same in z. A point of the map
 * is [z, x] in blocks (Leaflet's lat, lng).
 *
 * tiles/DIM/map-data.js (a script, so that the page also works from the
 * file system) says how many zoom levels there are, the world's bounds and,
 * for a static map, which tiles exist (the others are transparent and never
 * asked for). A live map (mcchunk serve --http) has every tile and
 * players.json, polled every 2 seconds, for the players' markers; when a
 * player has entered another chunk the tiles in view are asked for again
 * (at most every 10 seconds): the map of the built-in world shows the land
 * around the players, and the server answers a tile that did not change
 * from its cache.
 *
 * The address keeps the view: #dim=overworld&x=100&z=-20&zoom=0 opens there
 * (zoom as above, negative for closer); the panel shows the block under the
 * cursor and a link to the current view.
 */
(function () {
  'use strict';
  var params = {};
  location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
    var p = kv.split('=');
    if (p[0]) params[decodeURIComponent(p[0])] = decodeURIComponent(p[1] || '');
  });
  var dim = /^[a-z0-9_.-]+$/.test(params.dim || '') ? params.dim : 'overworld';

  function loadScript(src, done) {
    var s = document.createElement('script');
    s.src = src;
    s.onload = function () { done(true); };
    s.onerror = function () { done(false); };
    document.head.appendChild(s);
  }

  function start() {
    var data = window.MCCHUNK_MAP;
    if (!data) {
      document.getElementById('map').textContent = 'No map data for dimension ' + dim + '.';
      return;
    }
    var zooms = data.zooms, scale = 1 / Math.pow(2, zooms);
    /* Leaflet zoom L shows 2^(L - zooms) pixels per block: L = zooms is our zoom 0 */
    var crs = L.extend({}, L.CRS.Simple, { transformation: new L.Transformation(scale, 0, scale, 0) });
    var map = L.map('map', { crs: crs, minZoom: 0, maxZoom: zooms + 3, zoomSnap: 1 });
    var existing = null;
    if (data.tiles) {
      existing = {};
      data.tiles.forEach(function (t) { existing[t] = true; });
    }
    var redraws = 0;
    var EMPTY = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';
    var Tiles = L.TileLayer.extend({
      getTileUrl: function (c) {
        var key = (zooms - c.z) + '/' + c.x + '/' + c.y;
        if (existing && !existing[key]) return EMPTY;
        /* after a redraw, a new address: the browser's memory cache would
         * give back the image it has */
        return 'tiles/' + dim + '/' + key + '.png' + (redraws ? '?r=' + redraws : '');
      }
    });
    var tiles = new Tiles('', { tileSize: 512, minZoom: 0, maxZoom: zooms + 3, maxNativeZoom: zooms, noWrap: true,
      attribution: 'mcchunk' }).addTo(map);

    var b = data.bounds;
    var x = params.x !== undefined ? Number(params.x) : (b[0] + b[2]) / 2;
    var z = params.z !== undefined ? Number(params.z) : (b[1] + b[3]) / 2;
    var zoom = params.zoom !== undefined ? zooms - Number(params.zoom) : Math.max(0, zooms - 2);
    if (!isFinite(x) || !isFinite(z) || !isFinite(zoom)) { x = 0; z = 0; zoom = zooms; }
    map.setView([z, x], Math.max(0, Math.min(zooms + 3, zoom)));

    var Panel = L.Control.extend({
      onAdd: function () {
        var div = L.DomUtil.create('div', 'mc-panel');
        div.innerHTML = '<div id="mc-dims"></div><div>x <span id="mc-x">-</span> z <span id="mc-z">-</span></div>' +
          '<div><a id="mc-link" href="#">link to this view</a></div>';
        L.DomEvent.disableClickPropagation(div);
        return div;
      }
    });
    map.addControl(new Panel({ position: 'topright' }));
    var dims = window.MCCHUNK_DIMENSIONS || data.dimensions || [dim];
    document.getElementById('mc-dims').innerHTML = dims.map(function (d) {
      return d === dim ? '<b>' + d + '</b>' : '<a href="#dim=' + encodeURIComponent(d) + '" onclick="setTimeout(function(){location.reload()},0)">' + d + '</a>';
    }).join(' ');
    map.on('mousemove', function (e) {
      document.getElementById('mc-x').textContent = Math.floor(e.latlng.lng);
      document.getElementById('mc-z').textContent = Math.floor(e.latlng.lat);
    });
    function keepView() {
      var c = map.getCenter();
      var h = '#dim=' + encodeURIComponent(dim) + '&x=' + Math.round(c.lng) + '&z=' + Math.round(c.lat) +
        '&zoom=' + (zooms - map.getZoom());
      history.replaceState(null, '', h);
      document.getElementById('mc-link').href = h;
    }
    map.on('moveend', keepView);
    keepView();

    if (data.live) {
      var markers = {};
      window.mcchunkMarkers = markers;
      var chunks = null, redrawn = 0;
      var poll = function () {
        fetch('players.json', { cache: 'no-store' }).then(function (r) { return r.json(); }).then(function (list) {
          var now = list.map(function (p) {
            return p.edition + ':' + p.name + '@' + Math.floor(p.x / 16) + ',' + Math.floor(p.z / 16);
          }).sort().join(' ');
          if (chunks === null) {
            chunks = now;
          } else if (now !== chunks && Date.now() - redrawn > 10000) {
            chunks = now;
            redrawn = Date.now();
            window.mcchunkRedraws = ++redraws;
            tiles.redraw();
          }
          var seen = {};
          list.filter(function (p) { return p.dimension === dim; }).forEach(function (p) {
            var id = p.edition + ':' + p.name;
            seen[id] = true;
            var at = [p.z, p.x];
            if (!markers[id]) {
              markers[id] = L.circleMarker(at, { radius: 7, color: '#fff', weight: 2,
                fillColor: p.edition === 'bedrock' ? '#3a8' : '#e33', fillOpacity: 0.9 })
                .bindTooltip(p.name, { permanent: true, direction: 'right', className: 'mc-player' }).addTo(map);
              markers[id].getElement().setAttribute('data-player', p.name);
            } else {
              markers[id].setLatLng(at);
            }
          });
          Object.keys(markers).forEach(function (id) {
            if (!seen[id]) { map.removeLayer(markers[id]); delete markers[id]; }
          });
        }).catch(function (e) { window.mcchunkPollError = String(e); }).then(function () { setTimeout(poll, 2000); });
      };
      poll();
    }
    window.mcchunkMap = map;
  }

  loadScript('dimensions.js', function () {
    loadScript('tiles/' + dim + '/map-data.js', start);
  });
})();
