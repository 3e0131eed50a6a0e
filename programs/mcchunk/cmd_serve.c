/* cmd_serve.c: `mcchunk serve`, the reference server (programs/mcchunk/server/). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "tool_common.h"
#include "server/server.h"

static void help(FILE *out)
{
    fputs("usage: mcchunk serve [--world DIR] [--bind ADDR] [--port N] [--view-distance N]\n"
          "                     [--max-players N] [--motd TEXT] [--compression-threshold N]\n"
          "                     [--idle-timeout SECONDS] [--login-timeout SECONDS]\n"
          "                     [--exit-after SECONDS] [--port-file FILE]\n"
          "                     [--exit-with-parent] [--seed N] [--cache-mb N] [--send-queue-kb N]\n"
          "                     [--send-timeout SECONDS] [--bedrock-port N] [--no-bedrock]\n"
          "                     [--bedrock-encryption] [--bedrock-ids hashed|index]\n"
          "                     [--http PORT] [--http-bind ADDR] [--config FILE] [--quiet]\n\n"
          "Serves a world to Minecraft Java Edition clients 1.8 to 26.1 (TCP) and Bedrock Edition\n"
          "clients 1.16.220 to 1.26.51 (RakNet over UDP), each in its own protocol, in offline mode\n"
          "(no Mojang or Xbox authentication: names and identities are taken on trust). Answers\n"
          "server-list pings of every version (including Java's pre-1.7 legacy ping) and logs Java\n"
          "players in with the UUIDs the game derives for offline players. Bedrock clients from\n"
          "1.18.0 get columns through the SubChunk request system (skeleton LevelChunks, then the\n"
          "subchunks they ask for; the client blob cache when they enable it), older ones full\n"
          "LevelChunks. Both editions see the same world, translated per version.\n\n"
          "  --world DIR               a Java world folder (default: the built-in world)\n"
          "  --bind ADDR               address to listen on (default 127.0.0.1)\n"
          "  --port N                  TCP port (default 25565; 0 picks a free port)\n"
          "  --bedrock-port N          UDP port for Bedrock clients (RakNet; default 19132; 0 picks\n"
          "                            a free port, written as a second line of --port-file). A\n"
          "                            port that cannot be bound is logged and skipped\n"
          "  --no-bedrock              no Bedrock listener\n"
          "  --bedrock-encryption      encrypt Bedrock sessions (ECDH on secp384r1, AES-256 as the\n"
          "                            protocol has it, with per-packet checksums); off by default,\n"
          "                            which the game accepts\n"
          "  --bedrock-ids MODE        runtime ids of blocks for Bedrock 1.19.80+: hashed (default,\n"
          "                            as vanilla servers announce them) or index; older clients\n"
          "                            always get index ids\n"
          "  --http PORT               the live web map on HTTP PORT (0 picks a free port, logged):\n"
          "                            the page (Leaflet), tiles /tiles/DIM/Z/TX/TZ.png rendered\n"
          "                            on demand from --world (the pixels of `mcchunk render`;\n"
          "                            64 MiB of tiles cached) or, without --world, from the\n"
          "                            built-in world's columns as they are served, only those\n"
          "                            within --view-distance chunks of spawn or of a player\n"
          "                            (the rest transparent), and /players.json (players of\n"
          "                            both editions); off by default\n"
          "  --http-bind ADDR          address of the web map (default 127.0.0.1)\n"
          "  --view-distance N         chunks around the player, 2..32 (default 10)\n"
          "  --max-players N           (default 20)\n"
          "  --motd TEXT               server-list message\n"
          "  --compression-threshold N packets of N bytes or more are compressed; -1 turns\n"
          "                            compression off (default 256)\n"
          "  --idle-timeout SECONDS    drop clients silent this long (default 30)\n"
          "  --login-timeout SECONDS   drop clients of either edition that have not finished\n"
          "                            logging in this long after connecting, 0.1..86400\n"
          "                            (default 30; checked every 0.25 s)\n"
          "  --exit-after SECONDS      stop by itself after this long (tests, demos); a leap of\n"
          "                            the clock (a paused virtual machine) counts as 2 s\n"
          "  --exit-with-parent        stop when the process that started the server exits\n"
          "  --port-file FILE          write the bound port to FILE once listening\n"
          "  --seed N                  seed of the built-in world (default 20260101)\n"
          "  --cache-mb N              memory for every cache together, MiB: decoded columns,\n"
          "                            encoded chunk packets of each protocol, the world\n"
          "                            folder reader's buffers; least recently used first out\n"
          "                            (default 256)\n"
          "  --send-queue-kb N         a client whose unsent data passes N KiB is too slow and\n"
          "                            is dropped (default 4096); chunks are queued only while\n"
          "                            a client's queue is under half that, at most 1 MiB and\n"
          "                            about a second of what the client reads (so keep-alives\n"
          "                            never wait long behind chunks)\n"
          "  --send-timeout SECONDS    drop a client whose send queue takes nothing this long\n"
          "                            (default 20)\n"
          "  --config FILE             options from FILE, one per line: `name = value` with the\n"
          "                            long option's name (e.g. `view-distance = 12`); `#`\n"
          "                            starts a comment; options on the command line win\n"
          "  --quiet                   log only warnings and errors\n\n"
          "Memory: RSS stays under 48 MiB + 1.25 x --cache-mb + 12 MiB per Java client\n"
          "+ --send-queue-kb per Java client + 10 MiB per Bedrock client (clients: open\n"
          "connections; the 12 MiB are a Java connection's worst case, vanilla's largest\n"
          "packet in and its buffers; a Bedrock client's 10 MiB are RakNet's 4 MiB being\n"
          "reassembled and 4 MiB queued or unacknowledged, and at most 512 KiB of\n"
          "subchunks asked for; a walking player of either edition uses well under 1 MiB).\n"
          "--http adds at most 100 MiB (64 MiB of tiles, two renders of 12 MiB, 512\n"
          "connections of 9 KiB; for the built-in world 2 x 16 MiB more: each render's\n"
          "generator). Bedrock chunk data (per client version and id mode,\n"
          "compressed once) lives in the same --cache-mb as Java's packets. Memory freed\n"
          "is given back to the system when clients leave. Fairness: making columns (generating, reading, encoding,\n"
          "converting for Bedrock, answering subchunk requests) takes at most 8 ms of each\n"
          "turn of the event loop, shared round-robin between the players of both editions\n"
          "waiting for them, so a crowd walking into new land never holds up logins or\n"
          "keep-alives. A Bedrock client is dropped, with the reason in the log, for a\n"
          "SubChunkRequest of over 8192 subchunks, over 400 requests a second, over 32768\n"
          "subchunks asked for and not answered, over 4 MiB unacknowledged, a malformed or\n"
          "out-of-turn packet, or RakNet's own limits (splits, silence). Logging: at most 20 lines a second, the rest counted in one line;\n"
          "once a minute while players are online a status line (columns sent, the time\n"
          "spent making them, the longest gap between two ticks, cache use).\n\n"
          "Logs go to stderr; nothing is printed on stdout. A number out of range is a usage\n"
          "error naming the allowed range.\n"
          "exit status: 0 stopped normally (--exit-after, --exit-with-parent, a signal),\n"
          "1 the server failed (cannot bind, world unreadable), 2 usage error (bad option or\n"
          "value, --world that is not a folder)\n",
          out);
}

static bool int_arg(const char *opt, const char *s, int lo, int hi, int *out)
{
    return mc_tool_parse_int("mcchunk serve", opt, s, lo, hi, out);
}

static int parse_options(srv_server_config *cfg, int argc, char **argv, bool *done);

/* Reads `name = value` lines into an argv of --name value pairs (freed by the
 * caller with free_config_args). */
static char **read_config(const char *path, int *count)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "mcchunk serve: cannot read config %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char **args = calloc(1, sizeof *args);
    int n = 1; /* args[0] is a placeholder for the command name */
    args[0] = strdup("serve");
    char line[1024];
    int lineno = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        char *end = p + strlen(p);
        while (end > p && (end[-1] == '\n' || end[-1] == '\r' || end[-1] == ' ' || end[-1] == '\t'))
            *--end = '\0';
        if (!*p || *p == '#')
            continue;
        char *eq = strchr(p, '=');
        char *key = p, *val = NULL;
        if (eq) {
            *eq = '\0';
            val = eq + 1;
            char *k = eq;
            while (k > key && (k[-1] == ' ' || k[-1] == '\t'))
                *--k = '\0';
            while (*val == ' ' || *val == '\t')
                val++;
        }
        char **grown = realloc(args, (size_t)(n + 3) * sizeof *args);
        if (!grown)
            break;
        args = grown;
        size_t kl = strlen(key);
        args[n] = malloc(kl + 3);
        snprintf(args[n], kl + 3, "--%s", key);
        n++;
        if (val)
            args[n++] = strdup(val);
        args[n] = NULL;
        (void)lineno;
    }
    fclose(f);
    *count = n;
    return args;
}

static void free_config_args(char **args, int n)
{
    for (int i = 0; i < n; i++)
        free(args[i]);
    free(args);
}

int mc_cmd_serve(int argc, char **argv)
{
    srv_server_config cfg;
    srv_server_config_defaults(&cfg);
    bool done = false;
    char **conf = NULL;
    int nconf = 0;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--config")) {
            conf = read_config(argv[i + 1], &nconf);
            if (!conf)
                return MC_EXIT_USAGE;
        }
    int rc = conf ? parse_options(&cfg, nconf, conf, &done) : MC_EXIT_OK;
    if (rc == MC_EXIT_OK && !done)
        rc = parse_options(&cfg, argc, argv, &done);
    if (rc != MC_EXIT_OK || done) {
        if (conf)
            free_config_args(conf, nconf);
        return rc;
    }
    struct stat st;
    if (cfg.world && stat(cfg.world, &st) != 0) {
        fprintf(stderr, "mcchunk serve: --world %s: %s\n", cfg.world, strerror(errno));
        rc = MC_EXIT_USAGE;
    } else if (cfg.world && !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "mcchunk serve: --world %s is a file, not a world folder (the folder that holds "
                        "level.dat and region/)\n", cfg.world);
        rc = MC_EXIT_USAGE;
    } else {
        rc = srv_server_run(&cfg) == 0 ? MC_EXIT_OK : MC_EXIT_FAIL;
    }
    if (conf)
        free_config_args(conf, nconf); /* the config's strings live until the server stops */
    return rc;
}

static int parse_options(srv_server_config *cfgp, int argc, char **argv, bool *done)
{
    srv_server_config cfg = *cfgp;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(stdout);
            *done = true;
            return MC_EXIT_OK;
        } else if (!strcmp(a, "--quiet")) {
            cfg.quiet = true;
            continue;
        } else if (!strcmp(a, "--exit-with-parent")) {
            cfg.exit_with_parent = true;
            continue;
        } else if (!strcmp(a, "--no-bedrock")) {
            cfg.bedrock_port = -1;
            continue;
        } else if (!strcmp(a, "--bedrock-encryption")) {
            cfg.bedrock_encryption = true;
            continue;
        } else if (!v) {
            fprintf(stderr, "mcchunk serve: %s needs a value\n", a);
            return MC_EXIT_USAGE;
        } else if (!strcmp(a, "--world")) {
            cfg.world = v;
        } else if (!strcmp(a, "--bedrock-ids")) {
            if (strcmp(v, "hashed") && strcmp(v, "index")) {
                fprintf(stderr, "mcchunk serve: --bedrock-ids must be hashed or index, not '%s'\n", v);
                return MC_EXIT_USAGE;
            }
            cfg.bedrock_index_ids = !strcmp(v, "index");
        } else if (!strcmp(a, "--bind")) {
            cfg.bind = v;
        } else if (!strcmp(a, "--port")) {
            ok = int_arg(a, v, 0, 65535, &cfg.port);
        } else if (!strcmp(a, "--bedrock-port")) {
            ok = int_arg(a, v, 0, 65535, &cfg.bedrock_port);
        } else if (!strcmp(a, "--http")) {
            ok = int_arg(a, v, 0, 65535, &cfg.http_port);
        } else if (!strcmp(a, "--http-bind")) {
            cfg.http_bind = v;
        } else if (!strcmp(a, "--view-distance")) {
            ok = int_arg(a, v, 2, 32, &cfg.view_distance);
        } else if (!strcmp(a, "--max-players")) {
            ok = int_arg(a, v, 0, 100000, &cfg.max_players);
        } else if (!strcmp(a, "--motd")) {
            cfg.motd = v;
        } else if (!strcmp(a, "--compression-threshold")) {
            ok = int_arg(a, v, -1, 8388608, &cfg.compression_threshold);
        } else if (!strcmp(a, "--idle-timeout")) {
            int s = 0;
            ok = int_arg(a, v, 1, 86400, &s);
            cfg.idle_timeout_ms = s * 1000;
        } else if (!strcmp(a, "--login-timeout")) {
            double s = 0;
            ok = mc_tool_parse_double("mcchunk serve", a, v, 0.1, 86400, &s);
            cfg.login_timeout_ms = (int)(s * 1000 + 0.5);
        } else if (!strcmp(a, "--exit-after")) {
            ok = mc_tool_parse_double("mcchunk serve", a, v, 0.001, 1e9, &cfg.exit_after);
        } else if (!strcmp(a, "--seed")) {
            ok = mc_tool_parse_seed("mcchunk serve", a, v, &cfg.seed);
        } else if (!strcmp(a, "--cache-mb")) {
            int mb = 0;
            ok = int_arg(a, v, 1, 1 << 20, &mb);
            cfg.cache_bytes = (size_t)mb << 20;
        } else if (!strcmp(a, "--config")) {
            /* read before the other options */
        } else if (!strcmp(a, "--send-queue-kb")) {
            int kb = 0;
            ok = int_arg(a, v, 16, 1 << 22, &kb);
            cfg.max_pending_write = (size_t)kb << 10;
        } else if (!strcmp(a, "--send-timeout")) {
            int sec = 0;
            ok = int_arg(a, v, 1, 86400, &sec);
            cfg.send_timeout_ms = sec * 1000;
        } else if (!strcmp(a, "--port-file")) {
            cfg.port_file = v;
        } else {
            fprintf(stderr, "mcchunk serve: unknown option '%s'\n", a);
            help(stderr);
            return MC_EXIT_USAGE;
        }
        if (!ok) /* the parser said why */
            return MC_EXIT_USAGE;
        i++;
    }
    *cfgp = cfg;
    return MC_EXIT_OK;
}
