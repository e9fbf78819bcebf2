#!/usr/bin/env bash
# (Copied from the shared peers; the project's own test tooling now.)
# Start a REAL Home Assistant (2024.3.3, the newest release that installs on
# Python 3.11) on loopback as a test peer, onboard it without a browser, and
# print its base URL plus a long-lived access token.
#
#   ./run-real-ha.sh            start a fresh instance (new config dir)
#   ./run-real-ha.sh stop DIR   stop the instance whose config dir is DIR
#
# Environment knobs:
#   HA_VENV   virtualenv to use/create       (default ~/.cache/steward-peers/homeassistant-venv)
#   HA_ROOT   parent for fresh config dirs   (default $TMPDIR/steward-peers/homeassistant)
#   HA_PORT   port on 127.0.0.1              (default 18123, else a free one)
#   HA_SEED   1 = toggle/set entities once so history is not empty (default 1)
#
# On success the last lines on stdout are shell assignments, also written to
# $CONFIG/peer.env:  HA_BASE_URL=  HA_TOKEN= (admin)  HA_RO_TOKEN= (user in the
# built-in "system-read-only" group)  HA_PID=  HA_CONFIG=
# Everything here talks to 127.0.0.1 only.
set -euo pipefail

HA_VERSION=2024.3.3
HOST=127.0.0.1
HA_VENV=${HA_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/steward-peers/homeassistant-venv}
HA_ROOT=${HA_ROOT:-${TMPDIR:-/tmp}/steward-peers/homeassistant}
HA_SEED=${HA_SEED:-1}
PY=${PYTHON:-python3}

log() { echo "[run-real-ha] $*" >&2; }

if [[ ${1:-} == stop ]]; then
  dir=${2:?usage: $0 stop CONFIG_DIR}
  pid=$(cat "$dir/hass.pid")
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || { log "stopped pid $pid"; exit 0; }; sleep 0.5; done
  log "pid $pid did not stop within 30s"; exit 1
fi

# 1. virtualenv (about 1 minute from PyPI the first time; reused afterwards)
if ! "$HA_VENV/bin/hass" --version 2>/dev/null | grep -qx "$HA_VERSION"; then
  log "creating $HA_VENV with homeassistant==$HA_VERSION"
  "$PY" -m venv "$HA_VENV"
  "$HA_VENV/bin/pip" install -q --no-deps "homeassistant==$HA_VERSION"
  constraints="$HA_VENV/lib/python3.11/site-packages/homeassistant/package_constraints.txt"
  extra=$(mktemp); printf 'josepy<2\n' > "$extra"   # acme 2.8.0 breaks with josepy 2.x
  # Pre-install the runtime requirements of every integration this config loads
  # (recorder, frontend [always loaded by bootstrap], hardware, backup,
  # file_upload, person -> image_upload) so HA never pip-installs at startup.
  "$HA_VENV/bin/pip" install -q -c "$constraints" -c "$extra" "homeassistant==$HA_VERSION" \
    SQLAlchemy==2.0.27 fnv-hash-fast==0.5.0 psutil-home-assistant==0.0.1 Pillow==10.2.0 \
    home-assistant-frontend==20240307.0 securetar==2024.2.1 janus==1.0.0
  rm -f "$extra"
fi

# 2. port
port_free() { "$HA_VENV/bin/python" - "$1" <<'EOF'
import socket, sys
s = socket.socket()
try:
    s.bind(("127.0.0.1", int(sys.argv[1])))
except OSError:
    sys.exit(1)
finally:
    s.close()
EOF
}
PORT=${HA_PORT:-18123}
if ! port_free "$PORT"; then
  [[ -n ${HA_PORT:-} ]] && { log "port $PORT is busy"; exit 1; }
  PORT=$("$HA_VENV/bin/python" -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1]);s.close()')
fi
BASE="http://$HOST:$PORT"

# 3. fresh config dir
mkdir -p "$HA_ROOT"
CONFIG=$(mktemp -d "$HA_ROOT/ha-XXXXXX")
cat > "$CONFIG/configuration.yaml" <<EOF
homeassistant:
  name: Test Home
  latitude: 52.37
  longitude: 4.89
  elevation: 0
  unit_system: metric
  time_zone: UTC
  currency: EUR
  country: NL

http:
  server_host: $HOST
  server_port: $PORT

api:
onboarding:
websocket_api:

recorder:
  db_url: sqlite:///$CONFIG/home-assistant_v2.db
  commit_interval: 1

history:

input_boolean:
  test_switch:
    name: Test Switch

input_number:
  test_level:
    name: Test Level
    min: 0
    max: 100
    step: 1
    initial: 40

template:
  - sensor:
      - name: "Test Temperature"
        unique_id: test_temperature
        unit_of_measurement: "°C"
        device_class: temperature
        state_class: measurement
        state: "{{ (states('input_number.test_level') | float(0) / 2) | round(1) }}"
  - binary_sensor:
      - name: "Test Door"
        unique_id: test_door
        device_class: door
        state: "{{ is_state('input_boolean.test_switch', 'on') }}"
EOF

# 4. start
start=$(date +%s.%N)
"$HA_VENV/bin/hass" -c "$CONFIG" --log-file "$CONFIG/hass.log" >"$CONFIG/hass.stdout" 2>&1 &
PID=$!
echo "$PID" > "$CONFIG/hass.pid"
trap 'log "setup failed; stopping pid $PID"; kill "$PID" 2>/dev/null || true' ERR
log "hass pid $PID, config $CONFIG"
for _ in $(seq 1 240); do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$BASE/api/" || true)
  [[ $code == 401 ]] && break
  kill -0 "$PID" 2>/dev/null || { log "hass exited; see $CONFIG/hass.log"; exit 1; }
  sleep 0.5
done
[[ $code == 401 ]] || { log "no answer on $BASE within 120s"; kill "$PID"; exit 1; }
log "HTTP up after $("$HA_VENV/bin/python" -c "import time;print(round(time.time()-$start,1))")s"

# 5. onboard (user step), exchange the auth code, mint a long-lived token over websocket
"$HA_VENV/bin/python" - "$BASE" "$CONFIG" <<'EOF'
import asyncio, json, sys
import aiohttp

BASE, CONFIG = sys.argv[1], sys.argv[2]
assert BASE.startswith("http://127.0.0.1:")
CLIENT_ID = BASE + "/"

async def main() -> None:
    async with aiohttp.ClientSession() as s:
        for attempt in range(120):  # the view may register a moment after HTTP is up
            try:
                async with s.post(f"{BASE}/api/onboarding/users", json={
                    "client_id": CLIENT_ID, "name": "Test Owner", "username": "test",
                    "password": "test-pass-123", "language": "en"}) as r:
                    if r.status == 200:
                        code = (await r.json())["auth_code"]
                        break
                    if r.status == 403:
                        sys.exit("already onboarded: use a fresh config dir")
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.5)
        else:
            sys.exit("onboarding did not answer")
        async with s.post(f"{BASE}/auth/token", data={
            "grant_type": "authorization_code", "code": code, "client_id": CLIENT_ID}) as r:
            r.raise_for_status()
            access = (await r.json())["access_token"]
        async with s.ws_connect(BASE.replace("http://", "ws://") + "/api/websocket") as ws:
            assert (await ws.receive_json())["type"] == "auth_required"
            await ws.send_json({"type": "auth", "access_token": access})
            assert (await ws.receive_json())["type"] == "auth_ok"
            await ws.send_json({"id": 1, "type": "auth/long_lived_access_token",
                                "client_name": "plugin-tests", "lifespan": 3650})
            msg = await ws.receive_json()
            assert msg.get("success"), msg
        headers = {"Authorization": f"Bearer {msg['result']}"}
        for _ in range(120):  # wait until startup has finished (all entities exist)
            async with s.get(f"{BASE}/api/config", headers=headers) as r:
                if r.status == 200 and (await r.json()).get("state") == "RUNNING":
                    break
            await asyncio.sleep(0.5)
        else:
            sys.exit("core never reached RUNNING")
        # A second, least-privilege user in HA's built-in "system-read-only" group:
        # it can GET states/history but entity service calls answer 401.
        admin = msg["result"]
        async def ws_call(token, payloads):
            out = []
            async with s.ws_connect(BASE.replace("http://", "ws://") + "/api/websocket") as ws:
                await ws.receive_json()
                await ws.send_json({"type": "auth", "access_token": token})
                assert (await ws.receive_json())["type"] == "auth_ok"
                for i, p in enumerate(payloads, 1):
                    await ws.send_json({"id": i, **p})
                    m = await ws.receive_json()
                    assert m.get("success"), m
                    out.append(m["result"])
            return out
        [created] = await ws_call(admin, [{"type": "config/auth/create", "name": "LLM reader",
                                           "group_ids": ["system-read-only"], "local_only": True}])
        await ws_call(admin, [{"type": "config/auth_provider/homeassistant/create",
                               "user_id": created["user"]["id"], "username": "reader",
                               "password": "reader-pass-123"}])
        async with s.post(f"{BASE}/auth/login_flow", json={
                "client_id": CLIENT_ID, "handler": ["homeassistant", None], "redirect_uri": CLIENT_ID}) as r:
            flow = await r.json()
        async with s.post(f"{BASE}/auth/login_flow/{flow['flow_id']}", json={
                "client_id": CLIENT_ID, "username": "reader", "password": "reader-pass-123"}) as r:
            ro_code = (await r.json())["result"]
        async with s.post(f"{BASE}/auth/token", data={
                "grant_type": "authorization_code", "code": ro_code, "client_id": CLIENT_ID}) as r:
            ro_access = (await r.json())["access_token"]
        [ro_token] = await ws_call(ro_access, [{"type": "auth/long_lived_access_token",
                                                "client_name": "llm-reader", "lifespan": 3650}])
    with open(f"{CONFIG}/token", "w") as f:
        f.write(admin)
    with open(f"{CONFIG}/ro_token", "w") as f:
        f.write(ro_token)

asyncio.run(main())
EOF
TOKEN=$(cat "$CONFIG/token")
RO_TOKEN=$(cat "$CONFIG/ro_token")
curl -sf -H "Authorization: Bearer $TOKEN" "$BASE/api/" >/dev/null || { log "token check failed"; exit 1; }

# 6. optional: make some history
if [[ $HA_SEED == 1 ]]; then
  for body in '{"entity_id":"input_boolean.test_switch"}' '{"entity_id":"input_boolean.test_switch"}'; do
    curl -sf -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
      -d "$body" "$BASE/api/services/input_boolean/toggle" >/dev/null
    sleep 1
  done
  curl -sf -X POST -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' \
    -d '{"entity_id":"input_number.test_level","value":55}' "$BASE/api/services/input_number/set_value" >/dev/null
  sleep 1.5   # recorder commit_interval is 1s
fi

cat > "$CONFIG/peer.env" <<EOF
HA_BASE_URL=$BASE
HA_TOKEN=$TOKEN
HA_RO_TOKEN=$RO_TOKEN
HA_PID=$PID
HA_CONFIG=$CONFIG
EOF
trap - ERR
log "ready; stop with: $0 stop $CONFIG"
cat "$CONFIG/peer.env"
