#!/bin/sh
# a2a-handler 0.4.0 used through its CLI, the way a shell user scripts it, driven by a2a-lab's handshake.
#
#   PATH=CACHE/handler/bin:$PATH sh a2a_handler.sh CARD_URL          (tests/peers/install.sh makes that venv)
#
# `handler --output json message send --url BASE --text "$A2A_LAB_MESSAGE"` (blocking, the CLI's default), then,
# while the task it printed is SUBMITTED or WORKING, `handler --output json task get` for at most 10 seconds.
# Of A2A_LAB_ACTION it acts on `token` (--bearer-env) and `follow_up` (a second `message send` with --task-id and
# --context-id). Its state is isolated in a throw-away XDG_* tree. It writes no A2A_LAB_RESULT: its verdict comes
# from the wire. JSON fields are read with python3 (the venv's, first on PATH).
set -u

for card_url; do :; done # the last argument
case "${card_url:-}" in
*://*) ;;
*)
    echo "usage: a2a_handler.sh CARD_URL" >&2
    exit 2
    ;;
esac
base=${card_url%%/.well-known/*}
handler=${A2A_LAB_HANDLER:-handler}
follow_s=10 # how long a task still running is polled (each CLI call starts a Python process)

state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
export XDG_DATA_HOME="$state/data" XDG_CONFIG_HOME="$state/config" XDG_STATE_HOME="$state/state" \
    XDG_CACHE_HOME="$state/cache"

action=${A2A_LAB_ACTION:-}
[ -n "$action" ] || action='{}'

# field JSON PATH: one field of a JSON document (dotted path), or nothing.
field() {
    printf '%s' "$1" | python3 -c '
import json, sys
value = json.load(sys.stdin)
for key in sys.argv[1].split("."):
    value = value.get(key) if isinstance(value, dict) else None
print("" if value is None else value)' "$2" 2>/dev/null
}

auth=""
HANDLER_TOKEN=$(field "$action" token)
if [ -n "$HANDLER_TOKEN" ]; then
    export HANDLER_TOKEN
    auth="--bearer-env HANDLER_TOKEN"
fi

# send TEXT [handler options...]: send one message and follow the task it returns; prints the last JSON answer.
send() {
    text=$1
    shift
    # shellcheck disable=SC2086 # $auth is empty or two words
    out=$("$handler" --output json message send --url "$base" --text "$text" $auth "$@" </dev/null) || return 1
    deadline=$(($(date +%s) + follow_s))
    while [ "$(date +%s)" -lt "$deadline" ]; do
        case "$(field "$out" status.state)" in
        TASK_STATE_SUBMITTED | TASK_STATE_WORKING) ;;
        *) break ;;
        esac
        sleep 0.25
        # shellcheck disable=SC2086
        out=$("$handler" --output json task get --url "$base" $auth "$(field "$out" id)" </dev/null) || return 1
    done
    printf '%s\n' "$out"
}

answer=$(send "${A2A_LAB_MESSAGE:-Hello}") || exit 1
printf '%s\n' "$answer"
follow_up=$(field "$action" follow_up)
task_id=$(field "$answer" id)
if [ -n "$follow_up" ] && [ -n "$task_id" ] && [ -n "$(field "$answer" status.state)" ]; then
    send "$follow_up" --task-id "$task_id" --context-id "$(field "$answer" contextId)" || exit 1
fi
