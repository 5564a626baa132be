/* plugin_no_symbol.c: a shared library without the plugin entry symbol. */
int sv_not_a_plugin(void);
int sv_not_a_plugin(void) { return 42; }
