/* RedisCache exports only suite_plugin_v1, declared in suite_plugin.h. */
