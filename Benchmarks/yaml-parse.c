// The YAML benchmark's baseline: libyaml alone parsing each file into events, one file after
// the other, doing nothing with them. Usage: yaml-parse FILE...
#include <yaml.h>
#include <stdio.h>

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) { perror(argv[i]); return 2; }
        yaml_parser_t parser;
        yaml_event_t event;
        yaml_parser_initialize(&parser);
        yaml_parser_set_input_file(&parser, f);
        long events = 0;
        for (;;) {
            if (!yaml_parser_parse(&parser, &event)) { fprintf(stderr, "%s: %s\n", argv[i], parser.problem); return 2; }
            int done = event.type == YAML_STREAM_END_EVENT;
            yaml_event_delete(&event);
            events++;
            if (done) break;
        }
        yaml_parser_delete(&parser);
        fclose(f);
    }
    return 0;
}
