package configs

import (
	"os"
	"path/filepath"
)

// NamesrvConfig is Java's org.apache.rocketmq.common.namesrv.NamesrvConfig (4.9.8), with
// Java's defaults from DefaultNamesrvConfig. Tags as on BrokerConfig.
type NamesrvConfig struct {
	// Java reads it from -Drocketmq.home.dir or $ROCKETMQ_HOME; Skyrocket needs no install directory and only reports it.
	RocketmqHome string `prop:"rocketmqHome,nullable"`
	// The KV store file (default $HOME/namesrv/kvConfig.json).
	KvConfigPath string `prop:"kvConfigPath"`
	// Where UPDATE_NAMESRV_CONFIG persists (Java sets it to the -c file).
	ConfigStorePath string `prop:"configStorePath"`
	// Environment name (unused).
	ProductEnvName string `prop:"productEnvName"`
	// Cluster test mode (unused).
	ClusterTest bool `prop:"clusterTest"`
	// Answer orderTopicConf from the ORDER_TOPIC_CONFIG KV namespace.
	OrderMessageEnable bool `prop:"orderMessageEnable"`
	// Keys UPDATE_BROKER_CONFIG may not change, ";"-separated.
	ConfigBlackList string `prop:"configBlackList"`
}

// DefaultNamesrvConfig returns Java's defaults; the paths are under $HOME/namesrv and
// RocketmqHome is $ROCKETMQ_HOME.
func DefaultNamesrvConfig() NamesrvConfig {
	return NamesrvConfig{
		RocketmqHome:    os.Getenv("ROCKETMQ_HOME"),
		KvConfigPath:    filepath.Join(userHome(), "namesrv", "kvConfig.json"),
		ConfigStorePath: filepath.Join(userHome(), "namesrv", "namesrv.properties"),
		ProductEnvName:  "center",
		ConfigBlackList: "configBlackList;configStorePath;kvConfigPath",
	}
}
