// Latency of `swingdb serve` through Arrow's Flight SQL JDBC driver, for
// `python -m bench flight-sql`: `SELECT 1` on one reused Statement, and a
// prepared point query by key bound with a new key each time. Prints
// `key=value` lines (milliseconds). Usage: java PointLatency URL QUERIES KEYS WARMUP
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;

public class PointLatency {
    interface Query {
        void run(int i) throws Exception;
    }

    /** Prints the p50 and p99 of `queries` runs of `query` after `warmup`
     *  untimed ones (the JVM compiles the driver's code as it runs). */
    static void time(String name, int queries, int warmup, Query query) throws Exception {
        for (int i = 0; i < warmup; i++) {
            query.run(i);
        }
        long[] times = new long[queries];
        for (int i = 0; i < queries; i++) {
            long start = System.nanoTime();
            query.run(i);
            times[i] = System.nanoTime() - start;
        }
        Arrays.sort(times);
        System.out.println(name + "_p50_ms=" + times[queries / 2] / 1e6);
        System.out.println(name + "_p99_ms=" + times[queries * 99 / 100] / 1e6);
    }

    public static void main(String[] args) throws Exception {
        int queries = Integer.parseInt(args[1]);
        long keys = Long.parseLong(args[2]);
        int warmup = Integer.parseInt(args[3]);
        try (Connection con = DriverManager.getConnection(args[0]);
             Statement statement = con.createStatement();
             PreparedStatement point = con.prepareStatement("SELECT v FROM keyed WHERE id = ?")) {
            time("select1", queries, warmup, i -> {
                try (ResultSet rs = statement.executeQuery("SELECT 1")) {
                    while (rs.next()) {
                        rs.getInt(1);
                    }
                }
            });
            time("point", queries, warmup, i -> {
                point.setLong(1, (i * 7919L) % keys);
                try (ResultSet rs = point.executeQuery()) {
                    while (rs.next()) {
                        rs.getDouble(1);
                    }
                }
            });
        }
    }
}
