// Test-only (tests/local/test_tony_history.py): reads a tony job's .jhist (or .jhist.inprogress)
// with TonY's generated event classes, exactly as TonY's portal does: Avro's DataFileReader with
// a SpecificDatumReader of com.linkedin.tony.events.Event. Prints one JSON line per event:
// {"class": <the event's Java class>, "record": <the Event as Avro's toString writes it>}.
// Run with Java's source launcher: java -cp <classpath.txt> ReadJhist.java <file>
import com.linkedin.tony.events.Event;
import java.io.File;
import org.apache.avro.file.DataFileReader;
import org.apache.avro.specific.SpecificDatumReader;

public class ReadJhist {
  public static void main(String[] args) throws Exception {
    SpecificDatumReader<Event> datumReader = new SpecificDatumReader<>(Event.class);
    try (DataFileReader<Event> reader = new DataFileReader<>(new File(args[0]), datumReader)) {
      for (Event event : reader) {
        System.out.println("{\"class\": \"" + event.getEvent().getClass().getName()
            + "\", \"record\": " + event + "}");
      }
    }
  }
}
