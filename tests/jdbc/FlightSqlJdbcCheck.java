// What a JDBC tool does with `swingdb serve` through the Arrow Flight SQL
// JDBC driver (org.apache.arrow:flight-sql-jdbc-driver from Maven Central):
// statements, prepared statements with parameters, and the metadata calls
// DBeaver-style tools browse with. Prints one `key=value` line per finding,
// which tests/test_flight_jdbc.py checks. Usage: java FlightSqlJdbcCheck URL
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

public class FlightSqlJdbcCheck {
    public static void main(String[] args) throws Exception {
        try (Connection con = DriverManager.getConnection(args[0])) {
            try (Statement st = con.createStatement()) {
                st.execute("CREATE TABLE people (id INTEGER, name VARCHAR, born DATE, PRIMARY KEY (id))");
            }
            try (PreparedStatement insert = con.prepareStatement("INSERT INTO people VALUES (?, ?, ?)")) {
                System.out.println("insert_parameters=" + insert.getParameterMetaData().getParameterCount());
                String[] names = {"ada", "grace", "o'neil"};
                int changed = 0;
                for (int i = 0; i < names.length; i++) {
                    insert.setInt(1, i + 1);
                    insert.setString(2, names[i]);
                    insert.setDate(3, Date.valueOf("1990-01-0" + (i + 1)));
                    changed += insert.executeUpdate();
                }
                System.out.println("inserted=" + changed);
            }
            try (PreparedStatement query = con.prepareStatement("SELECT name, born FROM people WHERE id >= ? ORDER BY id")) {
                System.out.println("query_parameters=" + query.getParameterMetaData().getParameterCount());
                for (int from : new int[] {2, 3}) {
                    query.setInt(1, from);
                    List<String> rows = new ArrayList<>();
                    try (ResultSet rs = query.executeQuery()) {
                        while (rs.next()) {
                            rows.add(rs.getString(1) + "@" + rs.getDate(2));
                        }
                    }
                    System.out.println("from_" + from + "=" + String.join(",", rows));
                }
            }
            try (PreparedStatement bad = con.prepareStatement("SELECT * FROM missing_table WHERE id = ?")) {
                System.out.println("bad_prepared=accepted");
            } catch (SQLException e) {
                System.out.println("bad_prepared=" + (e.getMessage().contains("missing_table") ? "named" : e.getMessage()));
            }
            // The driver prepares a statement for each execute on a Statement
            // and leaves the one it replaces open (apache/arrow-java#1129):
            // more queries on one Statement than the server keeps open per client.
            try (PreparedStatement held = con.prepareStatement("SELECT name FROM people WHERE id = ?");
                 Statement reused = con.createStatement()) {
                int answered = 0;
                try {
                    for (int i = 0; i < 300; i++) {
                        try (ResultSet rs = reused.executeQuery("SELECT " + i + " AS n")) {
                            if (rs.next() && rs.getInt(1) == i) {
                                answered++;
                            }
                        }
                    }
                    System.out.println("reused_statement=" + answered);
                    // A statement the program held meanwhile is still open.
                    held.setInt(1, 2);
                    try (ResultSet rs = held.executeQuery()) {
                        System.out.println("held_meanwhile=" + (rs.next() ? rs.getString(1) : "no row"));
                    }
                } catch (SQLException e) {
                    System.out.println("reused_statement=failed after " + answered + " queries: " + e.getMessage().replace('\n', ' '));
                }
            }
            DatabaseMetaData meta = con.getMetaData();
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = meta.getTables(null, null, "%", null)) {
                while (rs.next()) {
                    tables.add(rs.getString("TABLE_SCHEM") + "." + rs.getString("TABLE_NAME"));
                }
            }
            System.out.println("tables=" + String.join(",", tables));
            List<String> columns = new ArrayList<>();
            try (ResultSet rs = meta.getColumns(null, null, "people", "%")) {
                while (rs.next()) {
                    columns.add(rs.getString("COLUMN_NAME"));
                }
            }
            System.out.println("columns=" + String.join(",", columns));
            List<String> keys = new ArrayList<>();
            try (ResultSet rs = meta.getPrimaryKeys(null, null, "people")) {
                while (rs.next()) {
                    keys.add(rs.getString("COLUMN_NAME") + "#" + rs.getInt("KEY_SEQ"));
                }
            }
            System.out.println("primary_keys=" + String.join(",", keys));
            System.out.println("product=" + meta.getDatabaseProductName());
        }
    }
}
