import Hummingbird
import Mustache
import Prometheus
import SQLiteNIO
import PostgresNIO
enum Placeholder {}
